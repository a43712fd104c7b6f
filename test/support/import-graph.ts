import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The project's import graph as the TypeScript parser reads it (not by regular expressions): every
 * import, re-export and dynamic import of every source file, with whether it is type-only (erased at
 * run time). Test files are left out: they may reach anything.
 */

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ImportEdge {
  /** Importing file, relative to the project root (`api/messaging/sms-send.ts`). */
  from: string;
  /** A project file (relative path) for relative imports, else the package specifier (`hono/html`). */
  to: string;
  /** Whether `to` is a file of the project. */
  local: boolean;
  /** `import type`, or every imported name is a type: nothing of it exists at run time. */
  typeOnly: boolean;
}

const SOURCE_FOLDERS = [
  'api',
  'activities',
  'application',
  'bench',
  'cmd',
  'connectors',
  'credentials',
  'db',
  'domain',
  'platform',
  'sandbox',
  'workflows',
];

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'migrations' ? [] : sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function edgesOf(file: string): ImportEdge[] {
  const from = path.relative(projectRoot, file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const local = specifier.startsWith('.');
    const to = local ? path.relative(projectRoot, path.resolve(path.dirname(file), specifier)) : specifier;
    edges.push({ from, to, local, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allNamedTypes =
        !!named &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((element) => element.isTypeOnly);
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && allNamedTypes));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** Every import edge of the project's source files (tests excluded). */
export function importGraph(): ImportEdge[] {
  return importGraphOf(SOURCE_FOLDERS);
}

/** Every import edge of the files below these top-level folders (`['test']` for the tests' own). */
export function importGraphOf(folders: readonly string[]): ImportEdge[] {
  return folders.flatMap((folder) => sourceFiles(path.join(projectRoot, folder))).flatMap(edgesOf);
}

/**
 * Circles of files that import each other (strongly connected components with more than one file),
 * type-only imports included: a circle is a tangle for the reader whether or not it runs.
 */
export function importCircles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    if (!edge.local) continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  // Tarjan's algorithm.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const connect = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const circle: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        circle.push(member);
      } while (member !== file);
      if (circle.length > 1) circles.push(circle.sort());
    }
  };
  for (const file of next.keys()) if (!index.has(file)) connect(file);
  return circles;
}
