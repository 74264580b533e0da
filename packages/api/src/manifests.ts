/**
 * Reading manifest files: multi-document YAML into objects, and validating every document with
 * line numbers. YAML problems (syntax errors, duplicate keys, tabs, bad indentation) become
 * violations with the line they are on, never exceptions.
 */
import {
  Composer,
  LineCounter,
  Parser,
  isAlias,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  visit,
} from 'yaml';
import type { CST, Document, Node as YamlNode } from 'yaml';
import { validate } from './validate.js';
import type { ValidateObjectOptions } from './validate.js';
import type { Violation } from './validation/violation.js';

/** One object read from a manifest: its data, 0-based document index and 1-based first line. */
export interface Manifest {
  object: unknown;
  document: number;
  line: number;
}

/**
 * Default of {@link ParseManifestsOptions.maxDepth}: how many levels of mappings and lists a
 * document may nest. Kubernetes objects need about 20 (a CRD's schema about 25); the YAML
 * library and every validator after it recurse once per level, so a limit far below the call
 * stack's keeps a hostile document from overflowing it.
 */
export const MAX_MANIFEST_DEPTH = 256;

/**
 * A problem with one YAML document (rule `yaml-syntax`, `duplicate-key`, `too-deep`,
 * `alias-cycle`, `merge-tag`, `yaml-tag` or `not-an-object`): a {@link Violation} that also says which document it is in.
 */
export interface ManifestViolation extends Violation {
  /** 0-based index of the document among the text's YAML documents (empty documents count). */
  document: number;
  /**
   * The problem alone, without the advice `message` adds: the YAML parser's first message line,
   * `duplicate key "spec"`, or `cannot read document: <alias error>`. For callers that word
   * their own one-line message (the CLI's `file:document:line problem`).
   */
  problem: string;
}

/** Result of {@link parseManifests}: the documents that parsed, and violations for those that did not. */
export interface ParsedManifests {
  manifests: Manifest[];
  violations: ManifestViolation[];
}

/** Options for {@link parseManifests} and {@link validateYaml}. */
export interface ManifestOptions {
  /** Shown in violations (`file`), e.g. `nodepool.yaml`. */
  fileName?: string;
}

/** Options for {@link parseManifests} only. */
export interface ParseManifestsOptions extends ManifestOptions {
  /**
   * Keep documents that are a list or a scalar as manifests (their `object` is the array or the
   * value) instead of reporting them as `not-an-object`, for callers that accept a top-level
   * array of objects (as `kubectl` does for JSON). Default false.
   */
  keepNonObjects?: boolean;
  /**
   * Most alias nodes a document may resolve before it is rejected as a resource-exhaustion
   * attempt (the `yaml` library's `maxAliasCount`). Default 100.
   */
  maxAliasCount?: number;
  /**
   * Most levels of mappings and lists a document may nest (default {@link MAX_MANIFEST_DEPTH});
   * a deeper document is a `too-deep` violation and is not composed.
   */
  maxDepth?: number;
}

interface ParsedDocument {
  doc: Document.Parsed;
  lines: LineCounter;
  index: number;
  /** Offset of the first collection nested past the depth limit; the document is then empty. */
  tooDeepAt?: number;
  /** Offset of the alias past the alias limit; the document is then empty. */
  aliasFloodAt?: number;
}

/**
 * The documents of `text` one at a time, each composed only when its parser token is complete
 * and dropped by the caller when it is done with it: a file of thousands of documents never
 * holds all their tokens and nodes at once.
 */
function* parseDocuments(
  text: string,
  maxDepth: number,
  maxAliasCount: number,
): Generator<ParsedDocument> {
  const lines = new LineCounter();
  const composer = new Composer({
    uniqueKeys: true,
    strict: true,
    // kubectl's decoder (go-yaml, YAML 1.1) resolves `<<: *anchor` merge keys; so do we.
    merge: true,
  });
  // What the token checks found, per document index, until the composer yields that document
  // (it yields a document when the next one starts, or at the end).
  const found = new Map<number, Pick<ParsedDocument, 'tooDeepAt' | 'aliasFloodAt'>>();
  let tokenIndex = 0;
  let docIndex = 0;
  function* numbered(docs: Iterable<Document.Parsed>): Generator<ParsedDocument> {
    for (const doc of docs) {
      const index = docIndex++;
      const checks = found.get(index) ?? {};
      found.delete(index);
      yield { doc, lines, index, ...checks };
    }
  }
  for (const token of new Parser(lines.addNewLine).parse(text)) {
    if (token.type === 'document') {
      // The parser keeps its own stack while the composer recurses once per level, so the depth
      // is measured on the parser's tokens and a too-deep document never reaches the composer.
      const tooDeepAt =
        token.value === undefined ? undefined : tooDeepOffset(token.value, maxDepth);
      // The composer resolves each alias by searching the document, and keeps every alias node:
      // a file of thousands of documents with a thousand aliases each took minutes and
      // gigabytes before toJS refused them, so such a document is refused on its tokens.
      const aliasFloodAt =
        token.value === undefined || tooDeepAt !== undefined
          ? undefined
          : aliasFloodOffset(token.value, maxAliasCount);
      if (tooDeepAt !== undefined || aliasFloodAt !== undefined) {
        delete token.value;
        found.set(tokenIndex, {
          ...(tooDeepAt === undefined ? {} : { tooDeepAt }),
          ...(aliasFloodAt === undefined ? {} : { aliasFloodAt }),
        });
      }
      tokenIndex++;
    }
    yield* numbered(composer.next(token));
  }
  yield* numbered(composer.end());
}

/**
 * Offset of the first alias that refers to an anchor name more than `maxAliasCount` times in a
 * parser token (such a document is one the `yaml` library's toJS refuses as excessive aliasing,
 * whatever the anchor holds), or undefined; -1 turns the check off. Walks with an explicit stack.
 */
function aliasFloodOffset(root: CST.Token, maxAliasCount: number): number | undefined {
  if (maxAliasCount < 0) return undefined;
  const counts = new Map<string, number>();
  const stack: CST.Token[] = [root];
  for (let token = stack.pop(); token !== undefined; token = stack.pop()) {
    if (token.type === 'alias') {
      const count = (counts.get(token.source) ?? 0) + 1;
      if (count > maxAliasCount) return token.offset;
      counts.set(token.source, count);
    } else if (
      token.type === 'block-map' ||
      token.type === 'block-seq' ||
      token.type === 'flow-collection'
    ) {
      for (const item of token.items as CST.CollectionItem[]) {
        if (item.value) stack.push(item.value);
        if (item.key) stack.push(item.key);
      }
    }
  }
  return undefined;
}

/**
 * Offset of the first mapping or list nested more than `maxDepth` levels deep in a parser token,
 * or undefined. Walks with an explicit stack, however deep the token is.
 */
function tooDeepOffset(root: CST.Token, maxDepth: number): number | undefined {
  const stack: Array<[CST.Token, number]> = [[root, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [token, depth] = next;
    if (
      token.type !== 'block-map' &&
      token.type !== 'block-seq' &&
      token.type !== 'flow-collection'
    )
      continue;
    if (depth + 1 > maxDepth) return token.offset;
    // A `key: value` item of a flow list (`[a: [b]]`) is a mapping of its own inside the list.
    const flowList = token.type === 'flow-collection' && token.start.source === '[';
    for (const item of token.items as CST.CollectionItem[]) {
      const below = depth + (flowList && (item.key || item.sep) ? 2 : 1);
      if (item.value) stack.push([item.value, below]);
      if (item.key) stack.push([item.key, below]);
    }
  }
  return undefined;
}

/**
 * Parses multi-document YAML (YAML 1.2 core schema plus YAML 1.1 `<<` merge keys, which
 * kubectl resolves; JSON is YAML). Documents with YAML errors
 * are left out and reported as `yaml-syntax` / `duplicate-key` violations with line numbers,
 * one per error; empty documents are skipped; a document that is not a mapping is reported as
 * `not-an-object` (unless `keepNonObjects`). Never throws for bad input.
 */
export function parseManifests(text: string, options: ParseManifestsOptions = {}): ParsedManifests {
  const manifests: Manifest[] = [];
  const violations: ManifestViolation[] = [];
  const violation = (
    document: number,
    rule: string,
    problem: string,
    message: string,
    line: number,
  ): ManifestViolation => ({
    kind: '',
    name: '',
    path: '',
    rule,
    message,
    apiServer: 'none',
    ...(options.fileName === undefined ? {} : { file: options.fileName }),
    line,
    document,
    problem,
  });
  const maxDepth = options.maxDepth ?? MAX_MANIFEST_DEPTH;
  const maxAliasCount = options.maxAliasCount ?? 100;
  for (const { doc, lines, index, tooDeepAt, aliasFloodAt } of parseDocuments(
    text,
    maxDepth,
    maxAliasCount,
  )) {
    const start = lines.linePos(doc.range[0]).line;
    if (aliasFloodAt !== undefined) {
      const problem = `cannot read document: an anchor is referenced more than ${maxAliasCount} times (excessive aliasing, as in a resource exhaustion attack)`;
      const line = lines.linePos(aliasFloodAt).line;
      violations.push(violation(index, 'yaml-syntax', problem, `YAML error: ${problem}`, line));
      continue;
    }
    if (tooDeepAt !== undefined) {
      const problem = `nested deeper than ${maxDepth} levels of mappings and lists (karpenter-ts reads at most ${maxDepth}; Kubernetes objects need about 20)`;
      const line = lines.linePos(tooDeepAt).line;
      violations.push(violation(index, 'too-deep', problem, `YAML error: ${problem}`, line));
      continue;
    }
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const line = e.linePos?.[0]?.line ?? lines.linePos(e.pos[0]).line;
        if (e.code === 'DUPLICATE_KEY') {
          const problem = duplicateKeyMessage(doc, e.pos[0]);
          const message = `${problem} (a key may appear once per mapping; kubectl rejects duplicate keys)`;
          violations.push(violation(index, 'duplicate-key', problem, message, line));
        } else {
          const problem = firstLine(e.message);
          violations.push(
            violation(index, 'yaml-syntax', problem, `YAML syntax error: ${problem}`, line),
          );
        }
      }
      continue;
    }
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) continue;
    const collectionKey = collectionKeyOffset(doc);
    if (collectionKey !== undefined) {
      // kubectl cannot turn such a key into JSON; the yaml library would stringify it with a warning.
      const problem =
        'a mapping key is itself a mapping or list (an unrendered template such as {{ … }}?)';
      const line = lines.linePos(collectionKey).line;
      violations.push(violation(index, 'yaml-syntax', problem, `YAML error: ${problem}`, line));
      continue;
    }
    // The yaml library turns a self-referencing alias into a circular object, which every reader
    // after it would recurse into forever; aliases can nest a document deeper than it looks; and
    // a `!!merge` value becomes a Symbol, which no reader (nor structuredClone) can handle.
    const nodeProblem = nodeProblemOf(doc, maxDepth);
    if (nodeProblem) {
      const { rule, problem, offset } = nodeProblem;
      const line = lines.linePos(offset).line;
      violations.push(violation(index, rule, problem, `YAML error: ${problem}`, line));
      continue;
    }
    let object: unknown;
    try {
      object = doc.toJS({ maxAliasCount });
    } catch (error) {
      // Alias problems (unresolved or excessive aliases) surface only when converting.
      const cause = firstLine(error instanceof Error ? error.message : String(error));
      violations.push(
        violation(
          index,
          'yaml-syntax',
          `cannot read document: ${cause}`,
          `YAML error: ${cause}`,
          start,
        ),
      );
      continue;
    }
    if (!isMap(doc.contents) && options.keepNonObjects !== true) {
      const what = isSeq(doc.contents) ? 'a list' : 'a scalar';
      violations.push(
        violation(
          index,
          'not-an-object',
          `document ${index + 1} is ${what}`,
          `document ${index + 1} is ${what}, not a Kubernetes object (a mapping with apiVersion, kind, metadata)`,
          start,
        ),
      );
      continue;
    }
    manifests.push({ object, document: index, line: start });
  }
  return { manifests, violations };
}

/**
 * Validates every document of a YAML manifest (see {@link validate}) and returns all violations,
 * each with `file` (when given) and the line of the offending node (the nearest existing parent
 * for missing fields). Never throws for bad input.
 */
export function validateYaml(
  text: string,
  options: ManifestOptions & ValidateObjectOptions = {},
): Violation[] {
  const { fileName, ...validateOptions } = options;
  const parsed = parseManifests(text, fileName === undefined ? {} : { fileName });
  // validateYaml's violations keep the plain Violation shape (no document index or problem).
  const out: Violation[] = parsed.violations.map(
    ({ document: _document, problem: _problem, ...violation }) => violation,
  );
  const docs = Array.from(parseDocuments(text, MAX_MANIFEST_DEPTH, 100));
  for (const m of parsed.manifests) {
    const doc = docs[m.document];
    for (const v of validate(m.object, validateOptions)) {
      out.push({
        ...v,
        ...(fileName === undefined ? {} : { file: fileName }),
        line: doc ? (lineOf(doc, v.path) ?? m.line) : m.line,
      });
    }
  }
  return out.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

/** Line of the deepest existing node along a violation path. */
function lineOf({ doc, lines }: ParsedDocument, path: string): number | undefined {
  const segments = splitPath(path);
  let best: number | undefined = lines.linePos(doc.range[0]).line;
  for (let n = segments.length; n >= 0; n--) {
    const node = doc.getIn(segments.slice(0, n), true) as YamlNode | undefined;
    if (node && typeof node === 'object' && 'range' in node && node.range) {
      // For a mapping value, point at its key's line when the value starts on a later line.
      best = lines.linePos(node.range[0]).line;
      const keyLine = keyLineOf(doc, segments.slice(0, n), lines);
      return keyLine !== undefined && keyLine < best ? keyLine : best;
    }
  }
  return best;
}

function keyLineOf(
  doc: Document.Parsed,
  segments: Array<string | number>,
  lines: LineCounter,
): number | undefined {
  if (segments.length === 0) return undefined;
  const parent = doc.getIn(segments.slice(0, -1), true);
  const last = segments[segments.length - 1];
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
  const key = pair?.key;
  return isScalar(key) && key.range ? lines.linePos(key.range[0]).line : undefined;
}

/** `spec.template.spec.requirements[2].operator` / `labels[a.b/c]` → segments. */
function splitPath(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(/^\d+$/.test(m[2]) ? Number(m[2]) : m[2]);
  }
  return out;
}

interface NodeProblem {
  rule: 'alias-cycle' | 'too-deep' | 'merge-tag' | 'yaml-tag';
  problem: string;
  /** Offset of the offending node. */
  offset: number;
}

/**
 * The first node of a composed document that no reader can take: an alias that names a node it
 * is inside (`&x [*x]`, which go-yaml refuses as "anchor 'x' value contains itself"), an alias
 * that nests the document deeper than `maxDepth` once expanded, or a value tagged `!!merge`
 * (valid only on a `<<` key). Recurses once per level of a document already known to be at most
 * `maxDepth` deep, and once per node: an alias takes the height its anchored node already has.
 */
/** Collection tags whose JavaScript value is a Set or a Map, not a mapping or a list. */
const NON_JSON_COLLECTION_TAGS = new Set(['tag:yaml.org,2002:set', 'tag:yaml.org,2002:omap']);

function nodeProblemOf(doc: Document.Parsed, maxDepth: number): NodeProblem | undefined {
  const anchors = new Map<string, YamlNode>();
  const heights = new Map<YamlNode, number>();
  const open = new Set<YamlNode>();
  let found: NodeProblem | undefined;
  // `depth` counts the collections around `node`; returns the levels `node` adds once expanded.
  const height = (node: unknown, depth: number, isKey = false): number => {
    if (found || !isNode(node)) return 0;
    if (isScalar(node) && typeof node.value === 'symbol' && !isKey) {
      found = {
        rule: 'merge-tag',
        problem: 'the !!merge tag is only valid on a mapping key (<<), not on a value',
        offset: node.range?.[0] ?? 0,
      };
      return 0;
    }
    // YAML 1.1 tags the yaml library turns into values JSON has no form for (Uint8Array, Date,
    // Set, Map), which every reader after it (structuredClone included) mistakes or throws on.
    const nonJson =
      (isScalar(node) && !isKey && typeof node.value === 'object' && node.value !== null) ||
      (isScalar(node) && typeof node.value === 'bigint') ||
      (isCollection(node) && node.tag !== undefined && NON_JSON_COLLECTION_TAGS.has(node.tag));
    if (nonJson) {
      const tag = (node as YamlNode).tag?.replace('tag:yaml.org,2002:', '!!') ?? 'its tag';
      found = {
        rule: 'yaml-tag',
        problem: `the ${tag} tag makes a value a Kubernetes object cannot hold (only strings, numbers, booleans, null, mappings and lists): write it untagged, as a string if need be`,
        offset: node.range?.[0] ?? 0,
      };
      return 0;
    }
    if (isAlias(node)) {
      const name = node.source;
      // An anchor names the latest node defined with it before the alias, as YAML resolves it.
      const target = anchors.get(name);
      if (target === undefined) return 0; // unresolved: the composer reports it
      const offset = node.range?.[0] ?? 0;
      if (open.has(target)) {
        found = {
          rule: 'alias-cycle',
          problem: `alias *${name} is inside the node its anchor &${name} names: a node cannot contain itself`,
          offset,
        };
        return 0;
      }
      const levels = heights.get(target) ?? 0;
      if (depth + levels > maxDepth)
        found = {
          rule: 'too-deep',
          problem: `nested deeper than ${maxDepth} levels of mappings and lists once alias *${name} is expanded (karpenter-ts reads at most ${maxDepth}; Kubernetes objects need about 20)`,
          offset,
        };
      return levels;
    }
    if (node.anchor) anchors.set(node.anchor, node);
    let levels = 0;
    if (isCollection(node)) {
      open.add(node);
      for (const item of node.items) {
        const below = isPair(item)
          ? Math.max(height(item.key, depth + 1, true), height(item.value, depth + 1))
          : height(item, depth + 1);
        levels = Math.max(levels, below);
      }
      open.delete(node);
      levels += 1;
    }
    heights.set(node, levels);
    return levels;
  };
  height(doc.contents, 0);
  return found;
}

/** Offset of the first mapping key that is a mapping or a list (`{{ .Values.x }}`), if any. */
function collectionKeyOffset(doc: Document.Parsed): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Pair(_, pair) {
      if ((isMap(pair.key) || isSeq(pair.key)) && pair.key.range) {
        offset = pair.key.range[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return offset;
}

/**
 * `duplicate key "spec"`: the key of the mapping pair starting at `offset`, where the YAML parser
 * reports a DUPLICATE_KEY error (its own message does not name the key).
 */
function duplicateKeyMessage(doc: Document.Parsed, offset: number): string {
  let key: string | undefined;
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
        key = String(pair.key.value);
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return key === undefined ? 'duplicate key' : `duplicate key ${JSON.stringify(key)}`;
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim() ?? text;
}
