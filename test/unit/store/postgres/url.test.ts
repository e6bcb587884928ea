import { InvalidStoreUrlError, maskUrl, parsePostgresUrl } from '../../../../src/store/postgres/url';

describe('PostgreSQL store URLs', () => {
  test('url: the password is masked, everything else is kept', () => {
    expect(maskUrl('postgres://agent:hunter2@db.internal:5432/runs?sslmode=require')).toBe(
      'postgres://agent:***@db.internal:5432/runs?sslmode=require',
    );
    expect(maskUrl('postgresql://agent@db/runs')).toBe('postgresql://agent@db/runs');
    expect(maskUrl('postgres://db/runs?password=hunter2&user=a')).toBe('postgres://db/runs?password=***&user=a');
  });

  test('url: a string that is not a URL still loses its password', () => {
    const masked = maskUrl('postgres://agent:hunter2@[bad');
    expect(masked).not.toContain('hunter2');
    expect(masked).toContain('agent:***@');
  });

  test('url: schema is ours and removed from what the driver gets; it defaults to agent_runner', () => {
    expect(parsePostgresUrl('postgres://a:b@h/db?schema=team_1&sslmode=require')).toEqual({
      connectionString: 'postgres://a:b@h/db?sslmode=require',
      schema: 'team_1',
      display: 'postgres://a:***@h/db?schema=team_1&sslmode=require',
    });
    expect(parsePostgresUrl('postgresql://h/db').schema).toBe('agent_runner');
  });

  test('url: a bad schema name or scheme is an InvalidStoreUrlError that masks the password', () => {
    for (const bad of [
      'postgres://a:pw@h/db?schema=Bad-Name',
      'mysql://a:pw@h/db',
      'postgres://a:pw@h/db?schema=x;drop',
    ]) {
      let err: unknown;
      try {
        parsePostgresUrl(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InvalidStoreUrlError);
      expect((err as Error).message).not.toContain(':pw@');
    }
  });
});
