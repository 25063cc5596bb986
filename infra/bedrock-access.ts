/**
 * What a function's role needs to call one Bedrock model, and nothing more, for each form
 * `model.name` takes:
 *
 *   anthropic.claude-sonnet-4-5-…            foundation model   → that model in the region called
 *   us.anthropic.claude-…  (eu., apac., …)   inference profile  → the profile, and the model in each
 *                                                                 region of its geography, only
 *                                                                 through that profile
 *   global.anthropic.claude-…                global profile     → the profile, the model in the
 *                                                                 region called, and the model with
 *                                                                 no region (how IAM names "any
 *                                                                 commercial region" for a global
 *                                                                 profile), only through the profile
 *   arn:…:inference-profile/… (and application-inference-profile, provisioned-model, …)
 *                                                              → as the ARN says
 *
 * A geographic profile routes to regions its geography holds; the table below is those regions as
 * Bedrock documents them. A profile whose routes differ (AWS adds regions) is named to the stack
 * with the context key `modelRegions`, which replaces the table's list.
 */
export const BEDROCK_INVOKE_ACTIONS = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'] as const;

export const PROFILE_GEOGRAPHIES: Record<string, readonly string[]> = {
  us: ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
  'us-gov': ['us-gov-east-1', 'us-gov-west-1'],
  ca: ['ca-central-1', 'ca-west-1'],
  eu: ['eu-central-1', 'eu-central-2', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-2', 'eu-west-3'],
  apac: ['ap-northeast-1', 'ap-northeast-2', 'ap-northeast-3', 'ap-south-1', 'ap-south-2', 'ap-southeast-1', 'ap-southeast-2', 'ap-southeast-4'],
  jp: ['ap-northeast-1', 'ap-northeast-3'],
  au: ['ap-southeast-2', 'ap-southeast-4'],
};

export interface BedrockModelTarget {
  /** `model.name`: a model id, an inference profile id or an ARN. */
  model: string;
  /** The region the functions call Bedrock in (the stack's, or `model.region`). */
  region: string;
  account: string;
  partition: string;
  /** The regions a geographic profile routes to, when they differ from PROFILE_GEOGRAPHIES. */
  routesTo?: readonly string[];
}

/** One IAM statement's worth: resources, and the condition under which they may be invoked. */
export interface BedrockGrant {
  resources: string[];
  /** Set for the foundation models behind a profile: they may be invoked only through it. */
  throughProfile?: string;
}

const ARN = /^arn:(aws[a-z-]*):bedrock:([a-z0-9-]*):(\d{12})?:([a-z-]+)\/(.+)$/;

export function bedrockGrants(target: BedrockModelTarget): BedrockGrant[] {
  const { model, region, account, partition } = target;
  const foundationModel = (modelId: string, inRegion: string) => `arn:${partition}:bedrock:${inRegion}::foundation-model/${modelId}`;
  const arn = ARN.exec(model);
  if (arn) {
    const [, , arnRegion, , kind, id] = arn as unknown as [string, string, string, string, string, string];
    if (kind === 'inference-profile') return profileGrants(id, model, arnRegion);
    // An application profile's models are not named in its ARN: any model, but only through it.
    if (kind === 'application-inference-profile') return [{ resources: [model] }, { resources: [foundationModel('*', '*')], throughProfile: model }];
    return [{ resources: [model] }];
  }
  const geography = model.split('.')[0]!;
  if (geography === 'global' || geography in PROFILE_GEOGRAPHIES) {
    return profileGrants(model, `arn:${partition}:bedrock:${region}:${account}:inference-profile/${model}`, region);
  }
  return [{ resources: [foundationModel(model, region)] }];

  function profileGrants(profileId: string, profileArn: string, sourceRegion: string): BedrockGrant[] {
    const [profileGeography, ...rest] = profileId.split('.');
    const modelId = rest.join('.');
    if (profileGeography === 'global') {
      return [{ resources: [profileArn] }, { resources: [foundationModel(modelId, sourceRegion), foundationModel(modelId, '')], throughProfile: profileArn }];
    }
    const regions = target.routesTo ?? PROFILE_GEOGRAPHIES[profileGeography!];
    if (!regions) throw new Error(`model.name "${model}": "${profileGeography}" is not a geography of Bedrock's inference profiles (${[...Object.keys(PROFILE_GEOGRAPHIES), 'global'].join(', ')}); give its regions with the context key modelRegions`);
    return [{ resources: [profileArn] }, { resources: regions.map((routed) => foundationModel(modelId, routed)), throughProfile: profileArn }];
  }
}
