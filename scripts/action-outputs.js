#!/usr/bin/env node
// Used by action.yml: reads the result object `agent-runner -p --output-format json` wrote and
// appends the GitHub Action's outputs to $GITHUB_OUTPUT (multi-line values with a random
// delimiter). Usage: node scripts/action-outputs.js RESULT_FILE EXIT_CODE
'use strict';
const fs = require('node:fs');
const crypto = require('node:crypto');

/** The outputs of the action for a result (or for no result: the run failed before one existed). */
function actionOutputs(result, exitCode) {
  const r = result && typeof result === 'object' && result.type === 'result' ? result : null;
  return {
    'exit-code': String(exitCode),
    subtype: r ? String(r.subtype) : 'no_result',
    'is-error': r ? String(r.is_error === true) : 'true',
    result: r && typeof r.result === 'string' ? r.result : '',
    errors: r && Array.isArray(r.errors) ? r.errors.join('\n') : '',
    'session-id': r ? String(r.session_id ?? '') : '',
    'num-turns': r ? String(r.num_turns ?? 0) : '0',
    'total-cost-usd': r ? String(r.total_cost_usd ?? 0) : '0',
    'duration-ms': r ? String(r.duration_ms ?? 0) : '0',
    'permission-denials': r ? String(Array.isArray(r.permission_denials) ? r.permission_denials.length : 0) : '0',
    // claude-code-action's name, for workflows that read `outputs.structured_output`.
    structured_output: r && r.structured_output !== undefined ? JSON.stringify(r.structured_output) : '',
  };
}

/** `name<<DELIM\nvalue\nDELIM` lines for $GITHUB_OUTPUT. */
function formatOutputs(outputs) {
  return Object.entries(outputs)
    .map(([k, v]) => {
      let delim;
      do delim = `ghadelim_${crypto.randomBytes(8).toString('hex')}`;
      while (v.includes(delim));
      return `${k}<<${delim}\n${v}\n${delim}\n`;
    })
    .join('');
}

function readResult(file) {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return text ? JSON.parse(text.split('\n').pop()) : null;
  } catch {
    return null;
  }
}

if (require.main === module) {
  const [file, code] = process.argv.slice(2);
  const outputs = actionOutputs(readResult(file), code ?? '');
  const target = process.env.GITHUB_OUTPUT;
  if (target) fs.appendFileSync(target, formatOutputs(outputs));
  else process.stdout.write(formatOutputs(outputs));
  if (process.env.GITHUB_STEP_SUMMARY) {
    fs.appendFileSync(
      process.env.GITHUB_STEP_SUMMARY,
      `### agent-runner: ${outputs.subtype}\n\n${outputs.result || outputs.errors}\n\n` +
        `${outputs['num-turns']} model calls, $${outputs['total-cost-usd']}, session \`${outputs['session-id']}\`\n`,
    );
  }
}

module.exports = { actionOutputs, formatOutputs, readResult };
