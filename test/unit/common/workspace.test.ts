import { mapFormerPath } from '../../../src/common/workspace';

describe('mapFormerPath', () => {
  const former = ['/hostA/ws/repo', '/old/checkout'];
  test('mapFormerPath: a path under a former root moves under the current root', () => {
    expect(mapFormerPath('/hostA/ws/repo/src/a.ts', former, '/hostB/ws/s1')).toBe('/hostB/ws/s1/src/a.ts');
    expect(mapFormerPath('/old/checkout', former, '/hostB/ws/s1')).toBe('/hostB/ws/s1');
  });
  test('mapFormerPath: other paths, and paths that only share a prefix of a root name, are kept', () => {
    expect(mapFormerPath('/hostA/ws/repository/a', former, '/b')).toBe('/hostA/ws/repository/a');
    expect(mapFormerPath('/etc/passwd', former, '/b')).toBe('/etc/passwd');
    expect(mapFormerPath('/hostA/ws/repo/a', [], '/b')).toBe('/hostA/ws/repo/a');
  });
});
