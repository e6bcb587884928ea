// Runs ESLint with the project's config outside jest (whose VM cannot load an ESM config file).
// stdin: {"cases": [{"rule" (a rule id or a list of them), "filePath", "code"?, "noTypes"?}]}; stdout: one array of messages per case
// ("<ruleId>: <message>"). A case without `code` lints the file on disk (ignores off).
import { ESLint } from 'eslint';

const root = new URL('../..', import.meta.url).pathname;
const input = JSON.parse(
  await new Promise((resolve) => {
    let data = '';
    process.stdin.on('data', (c) => (data += c));
    process.stdin.on('end', () => resolve(data));
  }),
);
const out = [];
for (const c of input.cases) {
  const eslint = new ESLint({
    cwd: root,
    ignore: false,
    ...(c.noTypes
      ? {
          overrideConfig: [
            { files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, project: null } } },
          ],
        }
      : {}),
    ruleFilter: ({ ruleId }) => [c.rule].flat().includes(ruleId),
  });
  const [result] =
    c.code === undefined
      ? await eslint.lintFiles([c.filePath])
      : await eslint.lintText(c.code, { filePath: c.filePath });
  out.push((result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`));
}
process.stdout.write(JSON.stringify(out));
