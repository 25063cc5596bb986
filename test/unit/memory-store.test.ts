import { describe } from 'vitest';
import { createMemoryConversationStore } from '../../lib/testing/memory-store.ts';
import { conversationStoreContract } from '../support/store-contract.ts';

describe('createMemoryConversationStore', () => {
  conversationStoreContract(({ now }) => createMemoryConversationStore({ now }));
});
