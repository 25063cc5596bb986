import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { CONVERSATION_TABLE } from '../lib/adapters/dynamodb/table.ts';

/**
 * The DynamoDB actions each function performs, and nothing more:
 * - a turn: Query (history), PutItem (claim, complete), DeleteItem (release a failed claim), GetItem
 *   (read back a write whose answer was lost), UpdateItem (renew the claim's lease in a long turn);
 *   its budgets: GetItem (the owner's tokens today), UpdateItem (count them, renew a turn slot),
 *   PutItem and DeleteItem (a turn slot); with memory on, also Query and
 *   PutItem on the owner's notes (remember, recall);
 * - deleting a conversation, or all of an owner's notes: BatchWriteItem (25 items at a time), which
 *   only the HTTP routes do.
 */
export const TURN_TABLE_ACTIONS = ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
export const CONVERSATION_TABLE_ACTIONS = [...TURN_TABLE_ACTIONS, 'dynamodb:BatchWriteItem'];

/**
 * The conversation table, with the key schema the store and the local emulator use
 * (lib/adapters/dynamodb/table.ts). On-demand capacity: traffic is bursty and small, and a turn
 * costs a constant three requests. Point-in-time recovery, because conversations are the product's
 * data. Each turn expires through its TTL attribute.
 */
export class ConversationTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    const { partitionKey, sortKey, timeToLiveAttribute } = CONVERSATION_TABLE;
    this.table = new Table(this, 'Table', {
      partitionKey: { name: partitionKey.name, type: AttributeType[attributeType(partitionKey.type)] },
      sortKey: { name: sortKey.name, type: AttributeType[attributeType(sortKey.type)] },
      timeToLiveAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // A retained table is also protected from deletion outside CloudFormation; `destroy` means disposable.
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy: props.removalPolicy,
    });
  }

  /** Allows exactly `actions` on this table (not its indexes or streams: there are none). */
  allow(actions: string[]): PolicyStatement {
    return new PolicyStatement({ actions, resources: [this.table.tableArn] });
  }
}

function attributeType(type: 'S' | 'N'): 'STRING' | 'NUMBER' {
  return type === 'S' ? 'STRING' : 'NUMBER';
}
