import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { projectRoot } from './import-graph.ts';

/**
 * Sizes the house rules hold (test/platform/house-rules.test.ts), measured with the TypeScript parser:
 * every TypeScript file of the project (tests included) and every function in it. Generated code
 * (the typed clients' types, SQL migrations) and installed packages are left out.
 */

const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'data', 'build', 'dist', 'coverage', 'migrations']);
const GENERATED = [path.join('clients', 'src', 'generated')];

/** Every .ts file of the project, relative to its root (`workflows/openbanking/consent.ts`). */
export function codeFiles(dir = projectRoot): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    const relative = path.relative(projectRoot, full);
    if (statSync(full).isDirectory()) {
      return SKIPPED_FOLDERS.has(name) || GENERATED.includes(relative) ? [] : codeFiles(full);
    }
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [relative] : [];
  });
}

/** Lines of a file as an editor counts them (a last line without a newline counts). */
export function lineCount(file: string): number {
  const text = readFileSync(path.join(projectRoot, file), 'utf8');
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

export interface FunctionSize {
  file: string;
  /** The function's name: its declaration's, or the variable, property or method it is bound to. */
  name: string;
  /** 1-based line of its first line. */
  line: number;
  /** From its first line to its closing brace, both included. */
  lines: number;
}

function boundName(node: ts.Node): string | undefined {
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node))
    return node.name?.getText() ?? 'default';
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) return node.name.getText();
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const parent = node.parent;
    if (
      ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)
    )
      return parent.name.getText();
    return '(anonymous)';
  }
  return undefined;
}

/** Every function with a body in `file`, nested ones included (each measured whole). */
export function functionSizes(file: string): FunctionSize[] {
  const text = readFileSync(path.join(projectRoot, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sizes: FunctionSize[] = [];
  const visit = (node: ts.Node) => {
    const name = boundName(node);
    if (name !== undefined && (node as ts.FunctionLikeDeclaration).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      sizes.push({ file, name, line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sizes;
}
