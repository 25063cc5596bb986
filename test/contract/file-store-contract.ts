/**
 * What every FileStore must do, run against each adapter (a local folder; S3 on a local
 * S3-compatible server): the same rules, so the tool and the routes behave the same locally and
 * deployed.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileStore } from '../../lib/core/ports/file-store.ts';
import type { ConversationKey } from '../../lib/core/ports/conversation-store.ts';

/** A fresh conversation per test: the store is shared by the file's tests. */
const newConversation = (owner?: string): ConversationKey => ({ conversationId: `c-${randomUUID()}`, ...(owner === undefined ? {} : { owner }) });

export function fileStoreContract(createStore: () => FileStore): void {
  describe('the FileStore contract', () => {
    it('lists no files for a conversation that has none, and gets nothing by a name it lacks', async () => {
      const store = createStore();
      const key = newConversation('alice');

      expect(await store.list(key)).toEqual([]);
      expect(await store.get(key, 'missing.md')).toBeUndefined();
    });

    it('keeps a file whole: content, description and size in UTF-8 bytes, listed by name', async () => {
      // Prepare
      const store = createStore();
      const key = newConversation('alice');
      const content = '# Weather\n\nShanghai: 24 °C, 多云.\n';

      // Act
      const put = await store.put(key, { name: 'weather report.md', description: 'The weather, by city — 天气', content });
      await store.put(key, { name: 'a.csv', description: '', content: 'city,celsius\nShanghai,24\n' });

      // Assess
      expect(put).toMatchObject({ name: 'weather report.md', description: 'The weather, by city — 天气', bytes: Buffer.byteLength(content) });
      expect(Number.isNaN(Date.parse(put.updatedAt))).toBe(false);
      expect(await store.get(key, 'weather report.md')).toMatchObject({ name: 'weather report.md', description: 'The weather, by city — 天气', content, bytes: Buffer.byteLength(content) });
      const listed = await store.list(key);
      expect(listed.map((file) => [file.name, file.description, file.bytes])).toEqual([
        ['a.csv', '', 25],
        ['weather report.md', 'The weather, by city — 天气', Buffer.byteLength(content)],
      ]);
      expect(listed[0]).not.toHaveProperty('content');
    });

    it('replaces a file written again under the same name', async () => {
      const store = createStore();
      const key = newConversation();
      await store.put(key, { name: 'notes.txt', description: 'first', content: 'one' });

      await store.put(key, { name: 'notes.txt', description: 'second', content: 'two, longer' });

      expect(await store.get(key, 'notes.txt')).toMatchObject({ description: 'second', content: 'two, longer' });
      expect((await store.list(key)).map((file) => file.name)).toEqual(['notes.txt']);
    });

    it('keeps each conversation’s and each owner’s files apart (no owner, and the owner "-", too)', async () => {
      const store = createStore();
      const shared = `c-${randomUUID()}`;
      const keys: ConversationKey[] = [{ conversationId: shared, owner: 'alice' }, { conversationId: shared, owner: 'bob' }, { conversationId: shared }, { conversationId: shared, owner: '-' }, newConversation('alice')];
      for (const [index, key] of keys.entries()) await store.put(key, { name: 'same.txt', description: '', content: `file of key ${index}` });

      for (const [index, key] of keys.entries()) {
        expect((await store.get(key, 'same.txt'))?.content).toBe(`file of key ${index}`);
        expect(await store.list(key)).toHaveLength(1);
      }
    });

    it('deletes every file of a conversation, says how many, and no other conversation’s', async () => {
      const store = createStore();
      const key = newConversation('alice');
      const other = newConversation('alice');
      await store.put(key, { name: 'one.md', description: '', content: '1' });
      await store.put(key, { name: 'two.md', description: '', content: '2' });
      await store.put(other, { name: 'kept.md', description: '', content: 'kept' });

      expect(await store.deleteAll(key)).toBe(2);

      expect(await store.list(key)).toEqual([]);
      expect(await store.get(key, 'one.md')).toBeUndefined();
      expect(await store.deleteAll(key)).toBe(0);
      expect((await store.get(other, 'kept.md'))?.content).toBe('kept');
    });

    it('keeps names as they are: spaces, non-Latin letters, dots and percent signs', async () => {
      const store = createStore();
      const key = newConversation('alice');
      const names = ['报告 2025.md', 'a%20b.txt', 'v1.2.final.json', 'x+y=z.csv'];
      for (const name of names) await store.put(key, { name, description: name, content: `content of ${name}` });

      expect((await store.list(key)).map((file) => file.name).sort()).toEqual([...names].sort());
      for (const name of names) expect((await store.get(key, name))?.content).toBe(`content of ${name}`);
    });
  });
}
