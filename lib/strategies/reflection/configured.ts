import type { AgentConfig } from '../../config/load.ts';
import type { Logger } from '../../core/logger.ts';
import type { NoteStore } from '../../core/ports/notes.ts';
import type { TurnStrategy } from '../../agent/loop/turn-strategy.ts';
import { builtInApproval } from '../../agent/loop/tool-policy.ts';
import { reflectionStrategy } from './driver.ts';
import { lessonsExtension } from './lessons.ts';
import { reflectionViewExtension } from './view.ts';

/** What Reflexion's lessons need besides agent.yml. */
export interface ReflectionServices {
  /** Where lessons are kept, among the owner's memory notes (memory: true). */
  notes?: NoteStore;
  logger?: Logger;
  now?: () => number;
}

/** The reflection strategy agent.yml describes, with its view and (Reflexion with memory) its lessons. */
export function configuredReflection(config: AgentConfig, services: ReflectionServices): TurnStrategy {
  const reflexion = config.strategy === 'reflexion';
  // Lessons live in the owner's memory, where GET and DELETE /memory reach them: memory must be on.
  const withLessons = reflexion && config.reflection.lessons > 0 && config.memory.enabled && services.notes !== undefined;
  const keepsLessons = withLessons && !lessonsNeedApproval(config);
  const extensions = [reflectionViewExtension()];
  if (withLessons && services.notes && services.logger) {
    extensions.push(
      lessonsExtension(services.notes, { lessons: config.reflection.lessons, mayKeep: keepsLessons, maxNotes: config.memory.maxNotes, maxNoteChars: config.memory.maxNoteChars, logger: services.logger, ...(services.now ? { now: services.now } : {}) }),
    );
  }
  return reflectionStrategy({ ...config.reflection, maxTrials: reflexion ? config.reflection.maxTrials : 1, keepsLessons }, extensions);
}

/** Lessons change what later conversations see, as `remember` does: kept only where such a call would need no approval. */
const lessonsNeedApproval = (config: AgentConfig) =>
  builtInApproval(config.builtInTools.requireApproval, new Map(config.mcpServers.map((server) => [server.name, server])))({
    definition: { name: 'lesson', description: 'A Reflexion lesson', parameters: { type: 'object' }, annotations: { readOnlyHint: false, destructiveHint: false } },
    changesLaterConversations: true,
    run: () => ({ ok: false, text: '' }),
  });
