#!/usr/bin/env node
// block-secrets: a UserPromptSubmit hook that refuses a prompt carrying an obvious secret.
//
// Contract (Claude Code's, run unchanged by hookbridge): the event arrives as JSON on stdin. To refuse
// the prompt the hook prints {"decision": "block", "reason": "..."} and exits 0: the prompt is erased
// before the model sees it and the reason is shown to the user. Otherwise it prints nothing.
'use strict';

const PATTERNS = [
  { name: 'an AWS access key ID', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { name: 'a GitHub token', re: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/ },
  { name: 'a Slack token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { name: 'a private key', re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/ },
];

/** Enough of the secret to recognise it, not enough to use it. */
function mask(secret) {
  return secret.length <= 8 ? '****' : `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}

function main(raw) {
  let payload;
  try {
    payload = JSON.parse(raw);
  } catch (e) {
    process.stderr.write(`block-secrets: the hook payload is not JSON: ${e.message}\n`);
    process.exitCode = 1;
    return;
  }
  const prompt = typeof payload.prompt === 'string' ? payload.prompt : '';
  for (const { name, re } of PATTERNS) {
    const found = prompt.match(re);
    if (found) {
      const reason =
        `Prompt blocked by block-secrets: it contains ${name} (${mask(found[0])}). ` +
        'Remove the secret and send the prompt again; pass credentials through environment variables ' +
        'or a secrets manager, never through the conversation.';
      process.stdout.write(JSON.stringify({ decision: 'block', reason }) + '\n');
      return;
    }
  }
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => main(input));
