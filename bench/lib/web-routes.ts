import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One screen of the web app as web/src/routes.tsx declares it. */
export interface WebRoute {
  name: string;
  /** The route's path pattern (web/src/routePaths.ts). */
  path: string;
  access: string;
  /** The module of the page component, relative to the web root (a Vite manifest key when lazy). */
  pageModule: string;
  /** True when the page loads on demand (`lazyPage(() => import(...))`): its code is a chunk of its own. */
  lazy: boolean;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
}

function stringProperty(object: ts.ObjectLiteralExpression, name: string): string | undefined {
  for (const property of object.properties) {
    if (ts.isPropertyAssignment(property) && property.name.getText() === name && ts.isStringLiteral(property.initializer)) {
      return property.initializer.text;
    }
  }
  return undefined;
}

/** The tag of `element: <Page />` in a route object. */
function elementTag(object: ts.ObjectLiteralExpression): string | undefined {
  for (const property of object.properties) {
    if (!ts.isPropertyAssignment(property) || property.name.getText() !== 'element') continue;
    const element = property.initializer;
    if (ts.isJsxSelfClosingElement(element)) return element.tagName.getText();
    if (ts.isJsxElement(element)) return element.openingElement.tagName.getText();
  }
  return undefined;
}

/** The specifier of the first `import('...')` inside a node (the loader of a lazy page). */
function dynamicImportSpecifier(node: ts.Node): string | undefined {
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const [specifier] = node.arguments;
    if (specifier !== undefined && ts.isStringLiteral(specifier)) return specifier.text;
  }
  return ts.forEachChild(node, dynamicImportSpecifier);
}

/** `routePaths` of web/src/routePaths.ts: route name → path pattern. */
function readRoutePaths(file: string): Map<string, string> {
  const paths = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.name.getText() === 'routePaths' && node.initializer !== undefined) {
      let initializer: ts.Expression = node.initializer;
      if (ts.isAsExpression(initializer)) initializer = initializer.expression;
      if (ts.isObjectLiteralExpression(initializer)) {
        for (const property of initializer.properties) {
          if (ts.isPropertyAssignment(property) && ts.isStringLiteral(property.initializer)) paths.set(property.name.getText(), property.initializer.text);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return paths;
}

/**
 * The routes of the web app, read from the router's source (web/src/routes.tsx: `appRoutes`, the
 * page imports and the lazy page declarations) so that a bench follows the router without a list
 * of its own: each route's page module, and whether it is loaded on demand.
 */
export function readWebRoutes(webRoot: string): WebRoute[] {
  const routesFile = path.join(webRoot, 'src', 'routes.tsx');
  const source = parse(routesFile);
  const toModule = (specifier: string): string => path.relative(webRoot, path.resolve(path.dirname(routesFile), specifier)).split(path.sep).join('/');
  const components = new Map<string, { module: string; lazy: boolean }>();
  const routeObjects: ts.ObjectLiteralExpression[] = [];

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.importClause?.namedBindings !== undefined) {
      const bindings = node.importClause.namedBindings;
      if (ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) components.set(element.name.text, { module: toModule(node.moduleSpecifier.text), lazy: false });
      }
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined) {
      const initializer = node.initializer;
      // `const Page = lazyPage(() => import('./pages/...'), ...)` (or React's lazy): a call around a dynamic import.
      if (ts.isCallExpression(initializer)) {
        const specifier = dynamicImportSpecifier(initializer);
        if (specifier !== undefined) components.set(node.name.text, { module: toModule(specifier), lazy: true });
      }
      if (node.name.text === 'appRoutes' && ts.isArrayLiteralExpression(initializer)) {
        for (const element of initializer.elements) if (ts.isObjectLiteralExpression(element)) routeObjects.push(element);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);

  const routePaths = readRoutePaths(path.join(webRoot, 'src', 'routePaths.ts'));
  if (routeObjects.length === 0) throw new Error(`no appRoutes array found in ${routesFile}`);
  return routeObjects.map((object) => {
    const name = stringProperty(object, 'name');
    const access = stringProperty(object, 'access');
    const tag = elementTag(object);
    const component = tag === undefined ? undefined : components.get(tag);
    const routePath = name === undefined ? undefined : routePaths.get(name);
    if (name === undefined || access === undefined || component === undefined || routePath === undefined) {
      throw new Error(`cannot read a route of ${routesFile}: ${object.getText().slice(0, 120)}`);
    }
    return { name, path: routePath, access, pageModule: component.module, lazy: component.lazy };
  });
}
