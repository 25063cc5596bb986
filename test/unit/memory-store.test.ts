import { describe } from 'vitest';
import { createMemoryConversationStore } from '../../lib/adapters/memory/conversation-store.ts';
import { conversationStoreContract } from '../support/store-contract.ts';
import { turnLifeContract } from '../support/turn-life-contract.ts';

describe('createMemoryConversationStore', () => {
  conversationStoreContract(createMemoryConversationStore);
});

describe('a turn’s life on the in-memory store', () => {
  turnLifeContract(createMemoryConversationStore);
});
