// SPDX-License-Identifier: MIT
// Validates profiles against schema/nettune.schema.json the way an editor
// does: parsed by the npm `yaml` package (YAML 1.2 core schema, the default
// of yaml-language-server) and, for comparison, its YAML 1.1 mode; checked
// by `ajv` (draft-07, strict).  Usage:
//   node editor_schema.mjs NODE_MODULES SCHEMA good|bad FILE...
// good: every file must validate under both readings; bad: every file must
// fail under both.  Prints one line per file; exit 1 on any surprise.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [modules, schemaPath, want, ...files] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), 'x.js'));
const YAML = require('yaml');
const Ajv = require('ajv');

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
let bad = 0;
for (const f of files) {
	const text = readFileSync(f, 'utf8');
	for (const version of ['1.2', '1.1']) {
		const doc = YAML.parse(text, { version });
		const ok = validate(doc);
		const errs = ok ? '' : ajv.errorsText(validate.errors);
		if (ok !== (want === 'good')) {
			bad++;
			console.log(`FAIL ${f} (YAML ${version}): ` +
				(ok ? 'passes the schema; it must fail it' : errs));
		} else {
			console.log(`ok ${f} (YAML ${version})${ok ? '' : ': ' + errs.slice(0, 160)}`);
		}
	}
}
process.exit(bad ? 1 : 0);
