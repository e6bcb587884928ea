import { PostgresTranscriptStore } from '../../../src/store/postgres/postgres-store';
import { freshSchemaUrl, sql } from '../../helpers/postgres';
import { describeStoreContract } from './contract';

describeStoreContract('PostgreSQL', async () => {
  const { url, schema } = freshSchemaUrl('contract');
  const opened: PostgresTranscriptStore[] = [];
  const open = async (maxContentBytes?: number): Promise<PostgresTranscriptStore> => {
    const s = await PostgresTranscriptStore.open(url, {
      schema: 'migrate',
      poolSize: 4,
      ...(maxContentBytes !== undefined ? { maxContentBytes } : {}),
    });
    opened.push(s);
    return s;
  };
  return {
    store: await open(),
    reopen: async (opts) => open(opts?.maxContentBytes),
    async dispose() {
      await Promise.all(opened.map((s) => s.close()));
      await sql(`DROP SCHEMA ${schema} CASCADE`);
    },
  };
});
