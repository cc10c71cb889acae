// Static checks of PowerShell scripts over the tree-sitter-powershell tree.
//
//   node ps1tree.js NODE_MODULES params TABLE.json FILE...
//     Every command is a function the script defines, a native program the
//     table lists, or a cmdlet of the table (tests/emit/cmdlets.json, made
//     from Microsoft's reference pages by gen_cmdlets.py).  Each named
//     parameter (-Name, and the keys of a splatted hashtable: @{ Key = ... }
//     and $p['Key'] = ... before the call in the same block) must be a
//     parameter of the cmdlet or a common parameter, and together they must
//     fit one parameter set.  A splat key that is not a literal is an error:
//     it cannot be checked.  Calls of the script's own functions are checked
//     against their param() blocks the same way.  Exit 1 on any finding.
//
//   node ps1tree.js NODE_MODULES shape FILE...
//     Prints one JSON line per file: {file, errors, commands, shape}, where
//     commands are the command names in order and shape is the sequence of
//     node types with the text of every node that is not a string literal or
//     a comment.  Two scripts that differ only inside single-quoted strings
//     and comments have the same shape.
'use strict';
const path = require('path');
const fs = require('fs');
const mods = path.resolve(process.argv[2]);
const TS = require(path.join(mods, 'web-tree-sitter', 'web-tree-sitter.cjs'));

const COMMON = ['Verbose', 'Debug', 'ErrorAction', 'WarningAction', 'InformationAction',
	'ErrorVariable', 'WarningVariable', 'InformationVariable', 'OutVariable', 'OutBuffer',
	'PipelineVariable'];

async function parser() {
	const Parser = TS.Parser || TS;
	await Parser.init();
	const Language = TS.Language || Parser.Language;
	const lang = await Language.load(path.join(mods, 'tree-sitter-powershell',
		'tree-sitter-powershell.wasm'));
	const p = new Parser();
	p.setLanguage(lang);
	return p;
}

function read(f) {
	let text = fs.readFileSync(f, 'utf8');
	if (text.charCodeAt(0) === 0xfeff)
		text = text.slice(1);
	return text;
}

// web-tree-sitter hands out a new object for every access: compare ids.
function same(a, b) {
	return !!a && !!b && a.id === b.id;
}

function each(n, fn) {
	fn(n);
	for (let i = 0; i < n.childCount; i++)
		each(n.child(i), fn);
}

function first(n, type) {
	let r = null;
	each(n, (x) => { if (!r && x.type === type) r = x; });
	return r;
}

function stringValue(n) {
	const s = first(n, 'verbatim_string_characters') || first(n, 'expandable_string_literal');
	if (!s)
		return null;
	const t = s.text;
	if (t.length < 2 || /[$`]/.test(t))
		return null;
	return t.slice(1, -1).replace(/''/g, "'");
}

// Keys given to splat variable v before node `at`: from the nearest block
// around it that assigns a hash literal to $v.
function splatKeys(at, v) {
	const bad = [];
	for (let b = at.parent; b; b = b.parent) {
		if (!['statement_block', 'script_block_body', 'script_block', 'program'].includes(b.type))
			continue;
		const keys = [];
		let found = false;
		each(b, (n) => {
			if (n.type !== 'assignment_expression' || n.startIndex >= at.startIndex)
				return;
			const left = n.child(0);
			const lv = first(left, 'variable');
			if (!lv || lv.text.toLowerCase() !== '$' + v.toLowerCase())
				return;
			const ea = first(left, 'element_access');
			if (ea) {
				const idx = ea.child(2);
				const k = idx ? stringValue(idx) : null;
				if (k === null || idx.text.trim()[0] !== "'")
					bad.push(`$${v}[${idx ? idx.text : ''}] is not a literal key`);
				else
					keys.push(k);
				return;
			}
			const h = first(n.child(2), 'hash_literal_expression');
			if (!h)
				return;
			found = true;
			each(h, (e) => {
				if (e.type === 'hash_entry' && same(e.parent.parent, h)) {
					const k = e.child(0);
					keys.push(k.text.replace(/^'|'$/g, ''));
				}
			});
		});
		if (found)
			return { keys, bad };
	}
	return { keys: [], bad: [`no hash literal assigned to $${v} before @${v}`] };
}

// The command a node is an argument of (null inside a script block).
function ownCommand(x) {
	for (let a = x.parent; a; a = a.parent) {
		if (a.type === 'command')
			return a;
		if (a.type === 'script_block' || a.type === 'hash_literal_expression')
			return null;
	}
	return null;
}

function functions(root) {
	const fns = {};
	each(root, (n) => {
		if (n.type !== 'function_statement')
			return;
		const name = first(n, 'function_name').text;
		const params = [];
		const pb = first(n, 'param_block');
		if (pb)
			each(pb, (x) => {
				if (x.type === 'script_parameter')
					params.push(first(x, 'variable').text.slice(1));
			});
		fns[name.toLowerCase()] = { name, params };
	});
	return fns;
}

function checkParams(table, f, root) {
	const errs = [];
	const fns = functions(root);
	const native = (table._native || []).map((x) => x.toLowerCase());
	const cmdlets = {};
	for (const k of Object.keys(table))
		if (!k.startsWith('_'))
			cmdlets[k.toLowerCase()] = table[k];
	let calls = 0;
	each(root, (n) => {
		if (n.type !== 'command')
			return;
		const cn = n.child(0);
		if (!cn || cn.type !== 'command_name')
			return;
		const name = cn.text;
		const pos = `${f}:${n.startPosition.row + 1}:${n.startPosition.column + 1}`;
		const used = [];
		each(n, (x) => {
			if (x.type === 'command_parameter' && same(x.parent.parent, n))
				used.push(x.text.replace(/^-/, '').replace(/:$/, ''));
			if (x.type === 'variable' && x.text.startsWith('@') && same(ownCommand(x), n)) {
				const s = splatKeys(n, x.text.slice(1));
				for (const b of s.bad)
					errs.push(`${pos}: ${name}: ${b}`);
				used.push(...s.keys);
			}
		});
		const key = name.toLowerCase();
		calls++;
		if (fns[key]) {
			const known = fns[key].params.map((p) => p.toLowerCase());
			for (const u of used)
				if (!known.includes(u.toLowerCase()) && !COMMON.includes(u))
					errs.push(`${pos}: ${name}: no parameter -${u} in its param() block`);
			return;
		}
		if (native.includes(key))
			return;
		const c = cmdlets[key];
		if (!c) {
			errs.push(`${pos}: ${name}: not in the cmdlet table (tests/emit/cmdlets.json)`);
			return;
		}
		const common = c.common ? COMMON.map((x) => x.toLowerCase()) : [];
		const named = used.filter((u) => !common.includes(u.toLowerCase()));
		const all = new Set();
		for (const s of Object.values(c.sets))
			for (const p of s)
				all.add(p.toLowerCase());
		let unknown = false;
		for (const u of named)
			if (!all.has(u.toLowerCase())) {
				errs.push(`${pos}: ${name}: no parameter -${u} (${c.doc || c.note})`);
				unknown = true;
			}
		if (unknown)
			return;
		const fits = Object.entries(c.sets).filter(([, ps]) => {
			const lower = ps.map((p) => p.toLowerCase());
			return named.every((u) => lower.includes(u.toLowerCase()));
		});
		if (!fits.length)
			errs.push(`${pos}: ${name}: -${named.join(' -')} fit no single parameter set of ` +
				`${Object.keys(c.sets).join(', ')} (${c.doc})`);
	});
	return { errs, calls };
}

function shape(root) {
	const out = [];
	const cmds = [];
	each(root, (n) => {
		if (n.type === 'command' && n.child(0) && n.child(0).type === 'command_name')
			cmds.push(n.child(0).text);
	});
	const walk = (n) => {
		if (n.type === 'comment' || n.type === 'verbatim_string_characters') {
			out.push(n.type);
			return;
		}
		out.push(n.childCount ? n.type : `${n.type}=${n.text}`);
		for (let i = 0; i < n.childCount; i++)
			walk(n.child(i));
	};
	walk(root);
	return { commands: cmds, shape: out };
}

async function main() {
	const p = await parser();
	const mode = process.argv[3];
	if (mode === 'params') {
		const table = JSON.parse(fs.readFileSync(process.argv[4], 'utf8'));
		let bad = 0;
		for (const f of process.argv.slice(5)) {
			const tree = p.parse(read(f));
			if (tree.rootNode.hasError) {
				console.log(`${f}: does not parse`);
				bad++;
				continue;
			}
			const { errs, calls } = checkParams(table, f, tree.rootNode);
			for (const e of errs)
				console.log(e);
			if (errs.length)
				bad++;
			else
				console.log(`${f}: ok (${calls} commands checked)`);
		}
		process.exitCode = bad ? 1 : 0;
		return;
	}
	if (mode === 'shape') {
		for (const f of process.argv.slice(4)) {
			const tree = p.parse(read(f));
			const s = shape(tree.rootNode);
			console.log(JSON.stringify({ file: f, errors: tree.rootNode.hasError, ...s }));
		}
		// process.exit() would cut a long stdout into a pipe short
		process.exitCode = 0;
		return;
	}
	console.error('usage: ps1tree.js NODE_MODULES params TABLE FILE... | shape FILE...');
	process.exit(64);
}
main().catch((e) => { console.error(e); process.exit(2); });
