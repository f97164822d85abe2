#!/usr/bin/env node
// inject-context: a UserPromptSubmit hook that adds project context to every prompt.
//
// Contract (Claude Code's, run unchanged by hookbridge): the event arrives as JSON on stdin; the hook
// prints {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "..."}}
// and exits 0, and the context is given to the model beside the prompt. It tells the model:
//   - the current git branch, if the project is a git work tree;
//   - how many TODO/FIXME markers the source has, and where the first few are;
//   - the project's conventions file (CONVENTIONS.md), if there is one.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const SKIP_DIRS = new Set(['node_modules', '.git', '.venv', 'venv', 'target', 'dist', 'build', '__pycache__']);
const SOURCE_EXT = new Set(['.py', '.js', '.mjs', '.cjs', '.ts', '.tsx', '.jsx', '.rs', '.go', '.java', '.rb', '.sh']);
const MAX_FILES = 5000;
const MAX_FILE_BYTES = 1024 * 1024;
const SHOWN_TODOS = 5;
const MAX_CONVENTIONS_CHARS = 4000;

function gitBranch(dir) {
  const run = (args) => {
    const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', timeout: 2000 });
    return r.status === 0 ? r.stdout.trim() : '';
  };
  // symbolic-ref works on a fresh repository without commits; rev-parse names a detached HEAD.
  const branch = run(['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (branch) return branch;
  const sha = run(['rev-parse', '--short', 'HEAD']);
  return sha ? `detached at ${sha}` : '';
}

function todos(root) {
  const found = [];
  let files = 0;
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (files >= MAX_FILES) return;
      if (entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
      } else if (entry.isFile() && SOURCE_EXT.has(path.extname(entry.name))) {
        files += 1;
        let text;
        try {
          if (fs.statSync(full).size > MAX_FILE_BYTES) continue;
          text = fs.readFileSync(full, 'utf8');
        } catch {
          continue;
        }
        text.split('\n').forEach((line, i) => {
          const m = line.match(/\b(TODO|FIXME)\b:?\s*(.*)/);
          if (m) found.push(`${path.relative(root, full)}:${i + 1}: ${m[1]}: ${m[2].trim()}`);
        });
      }
    }
  };
  walk(root);
  return found;
}

function conventions(root) {
  for (const name of ['CONVENTIONS.md', path.join('.amplifier', 'CONVENTIONS.md')]) {
    try {
      const text = fs.readFileSync(path.join(root, name), 'utf8').trim();
      if (text) return { name, text: text.slice(0, MAX_CONVENTIONS_CHARS) };
    } catch {
      // not there: try the next name
    }
  }
  return null;
}

function main(raw) {
  let payload = {};
  try {
    payload = JSON.parse(raw);
  } catch (e) {
    process.stderr.write(`inject-context: the hook payload is not JSON: ${e.message}\n`);
    process.exitCode = 1;
    return;
  }
  const root = process.env.CLAUDE_PROJECT_DIR || payload.cwd || process.cwd();
  const lines = [`Project context (from the node-context hook) for ${path.basename(root)}:`];
  const branch = gitBranch(root);
  if (branch) lines.push(`- Git branch: ${branch}`);
  const markers = todos(root);
  lines.push(`- Open TODO/FIXME markers in the source: ${markers.length}`);
  for (const m of markers.slice(0, SHOWN_TODOS)) lines.push(`  - ${m}`);
  if (markers.length > SHOWN_TODOS) lines.push(`  - … and ${markers.length - SHOWN_TODOS} more`);
  const conv = conventions(root);
  if (conv) lines.push(`- Project conventions (${conv.name}):`, conv.text);
  const out = { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: lines.join('\n') } };
  process.stdout.write(JSON.stringify(out) + '\n');
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => main(input));
