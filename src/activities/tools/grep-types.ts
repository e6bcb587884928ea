/**
 * File types Grep's `type` filter knows (a subset of ripgrep's `--type` names), by extension
 * or exact file name.
 */

/** Extensions (without dot) and exact base names per type name. */
export const GREP_FILE_TYPES: Readonly<Record<string, { ext: readonly string[]; names?: readonly string[] }>> = {
  c: { ext: ['c', 'h'] },
  cpp: { ext: ['cpp', 'cc', 'cxx', 'c++', 'hpp', 'hh', 'hxx', 'h', 'inl'] },
  cs: { ext: ['cs'] },
  css: { ext: ['css', 'scss', 'sass', 'less'] },
  csv: { ext: ['csv'] },
  dart: { ext: ['dart'] },
  docker: { ext: ['dockerfile'], names: ['Dockerfile'] },
  elixir: { ext: ['ex', 'exs'] },
  go: { ext: ['go'] },
  graphql: { ext: ['graphql', 'gql'] },
  haskell: { ext: ['hs', 'lhs'] },
  html: { ext: ['html', 'htm', 'xhtml'] },
  java: { ext: ['java'] },
  js: { ext: ['js', 'jsx', 'mjs', 'cjs', 'vue'] },
  json: { ext: ['json', 'jsonc', 'json5', 'jsonl'] },
  kotlin: { ext: ['kt', 'kts'] },
  lua: { ext: ['lua'] },
  make: { ext: ['mk', 'mak'], names: ['Makefile', 'makefile', 'GNUmakefile'] },
  md: { ext: ['md', 'markdown', 'mdx'] },
  markdown: { ext: ['md', 'markdown', 'mdx'] },
  php: { ext: ['php'] },
  proto: { ext: ['proto'] },
  py: { ext: ['py', 'pyi', 'pyw'] },
  python: { ext: ['py', 'pyi', 'pyw'] },
  r: { ext: ['r', 'R', 'Rmd'] },
  rb: { ext: ['rb', 'rake', 'gemspec'], names: ['Gemfile', 'Rakefile'] },
  ruby: { ext: ['rb', 'rake', 'gemspec'], names: ['Gemfile', 'Rakefile'] },
  rust: { ext: ['rs'] },
  scala: { ext: ['scala', 'sc'] },
  sh: { ext: ['sh', 'bash', 'zsh', 'ksh'], names: ['.bashrc', '.zshrc', '.profile'] },
  sql: { ext: ['sql'] },
  swift: { ext: ['swift'] },
  toml: { ext: ['toml'] },
  ts: { ext: ['ts', 'tsx', 'mts', 'cts'] },
  typescript: { ext: ['ts', 'tsx', 'mts', 'cts'] },
  txt: { ext: ['txt'] },
  xml: { ext: ['xml', 'xsd', 'xsl', 'svg'] },
  yaml: { ext: ['yaml', 'yml'] },
};

/**
 * A predicate for file paths of the given type, or `undefined` for an unknown type name.
 */
export function fileTypeMatcher(type: string): ((filePath: string) => boolean) | undefined {
  const spec = GREP_FILE_TYPES[type];
  if (!spec) return undefined;
  const exts = new Set(spec.ext.map((e) => `.${e.toLowerCase()}`));
  const names = new Set(spec.names ?? []);
  return (filePath: string) => {
    const base = filePath.slice(filePath.lastIndexOf('/') + 1);
    if (names.has(base)) return true;
    const dot = base.lastIndexOf('.');
    return dot > 0 && exts.has(base.slice(dot).toLowerCase());
  };
}
