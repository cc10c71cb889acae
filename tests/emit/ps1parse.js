// Parses .ps1 files with tree-sitter-powershell; prints every ERROR or
// MISSING node with its position and exits 1 if any file has one.
// Usage: node ps1parse.js NODE_MODULES_DIR FILE...
'use strict';
const path = require('path');
const fs = require('fs');
const mods = path.resolve(process.argv[2]);
const TS = require(path.join(mods, 'web-tree-sitter', 'web-tree-sitter.cjs'));

async function main() {
	const Parser = TS.Parser || TS;
	await Parser.init();
	const Language = TS.Language || Parser.Language;
	const lang = await Language.load(path.join(mods, 'tree-sitter-powershell',
		'tree-sitter-powershell.wasm'));
	const parser = new Parser();
	parser.setLanguage(lang);
	let bad = 0;
	for (const f of process.argv.slice(3)) {
		let text = fs.readFileSync(f, 'utf8');
		if (text.charCodeAt(0) === 0xfeff)
			text = text.slice(1);
		const tree = parser.parse(text);
		const errs = [];
		const walk = (n) => {
			if (n.type === 'ERROR' || n.isMissing)
				errs.push(n);
			else if (n.hasError)
				for (let i = 0; i < n.childCount; i++)
					walk(n.child(i));
		};
		walk(tree.rootNode);
		for (const e of errs.slice(0, 5)) {
			const p = e.startPosition;
			console.log(`${f}:${p.row + 1}:${p.column + 1}: ${e.isMissing ? 'missing ' + e.type : 'ERROR'}: ` +
				JSON.stringify(text.split('\n')[p.row].slice(0, 120)));
		}
		if (errs.length)
			bad++;
		else
			console.log(`${f}: ok (${tree.rootNode.descendantCount} nodes)`);
	}
	process.exit(bad ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(2); });
