/**
 * Patterns from the document run against API data without stalling the thread: the linear-time engine where V8 has
 * it, else only patterns proven safe, each test bounded by a step count (JSON Schema 2020-12, 6.3.3 `pattern`;
 * ECMA-262 regular expressions).
 */
import { lazyBuiltin } from '../shared/builtin.ts';

const v8 = lazyBuiltin('node:v8');
let linearEngine = false;

/**
 * V8's non-backtracking engine (the `l` flag) runs a pattern in time linear in the value. Node 20 and 24 ship it
 * behind a flag, set here before the first pattern is compiled rather than when this module loads (`node:v8` is not
 * loaded before the server answers `initialize`, issue 20); where it is missing, `new RegExp(p, 'l')` throws and
 * only provably safe patterns run (see `compilePattern`).
 */
function enableLinearEngine(): void {
  if (linearEngine) return;
  linearEngine = true;
  try {
    v8().setFlagsFromString('--enable-experimental-regexp-engine');
  } catch {
    // a runtime without V8 flags: the backtracking fallback below still refuses risky patterns
  }
}

/** Longest value (UTF-16 code units) tested with the linear-time engine. */
export const MAX_PATTERN_VALUE_LENGTH = 1_000_000;
/** Longest value (UTF-16 code units) tested with the backtracking engine, for patterns `compilePattern` judges safe. */
export const MAX_BACKTRACKING_VALUE_LENGTH = 4096;
/**
 * Most backtracking steps one value test may cost, as bounded by `backtrackingCost` (start positions times
 * choice combinations times pattern atoms): about 10 ms of V8 time at this figure. Costlier tests are not run.
 */
export const MAX_BACKTRACKING_STEPS = 4_000_000;
/**
 * Most work one linear-time test may cost, as value length times pattern length (the automaton's states):
 * about 0.1 s of V8 time at this figure. A 1,000-branch alternation (6 KB) against a 100,000-character value
 * (6e8) would take seconds; such a test is not run.
 */
export const MAX_LINEAR_WORK = 5_000_000;

/**
 * A document pattern ready to test values: `test` answers true / false, or `{notChecked}` with an
 * agent-facing reason when this value cannot be tested safely (too long, too costly for the
 * backtracking engine, or astral characters the linear engine would read differently).
 */
export type CompiledPattern = {
  engine: 'linear' | 'backtracking';
  test(value: string): boolean | { notChecked: string };
};

const compiledPatterns = new Map<string, CompiledPattern | { reason: string }>();

/**
 * An upper bound on the backtracking search of a pattern, as a function of the value's length `n`:
 * log2(start positions × choice combinations × (atoms + 1)). Start positions are 1 for a pattern
 * anchored with a leading `^` and no top-level `|`, else n + 1; each `*`, `+`, `{m,}` and each
 * backreference (which may match up to n characters) is a factor n + 1, `{m,k}` a factor min(k - m + 1, n + 1),
 * `?` a factor 2 and each alternation its branch count, so `^(?:a|a)(?:a|a)…$` with N groups is 2^N.
 * The product bounds the search only when no quantified group holds a quantifier or an alternation
 * (`(a+)+`, `(a|b)+`, `(a|b){20}`): then `unsafe` is true and there is no bound.
 * A counted repetition (`{m}`, `{m,k}`) adds its item's atoms once per extra repetition (the largest count).
 * Escapes and character classes are read as single atoms; the scan is conservative (it may over-count).
 */
type BacktrackingCost = {
  unsafe: boolean;
  anchored: boolean;
  perLength: number;
  ranges: number[];
  constantLog2: number;
  atoms: number;
};

function backtrackingCost(pattern: string): BacktrackingCost {
  const cost: BacktrackingCost = {
    unsafe: false,
    anchored: pattern.startsWith('^'),
    perLength: 0,
    ranges: [],
    constantLog2: 0,
    atoms: 0,
  };
  const groups: { risky: boolean; branches: number; startAtoms: number }[] = [
    { risky: false, branches: 1, startAtoms: 0 },
  ];
  let lastGroupRisky = false;
  let lastGroupAtoms = 1;
  let previous: 'atom' | 'group' | 'none' = 'none';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') cost.perLength++; // a backreference matches up to n characters
      i++;
      cost.atoms++;
      previous = 'atom';
      continue;
    }
    if (ch === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      cost.atoms++;
      previous = 'atom';
      continue;
    }
    if (ch === '(') {
      cost.atoms++;
      groups.push({ risky: false, branches: 1, startAtoms: cost.atoms });
      // skip the group's kind (`?:`, `?=`, `?!`, `?<=`, `?<!`, `?<name>`) so its `?` is not read as a quantifier
      const kind = /^\?(?::|=|!|<=|<!|<[^>]*>)/.exec(pattern.slice(i + 1, i + 260));
      if (kind) i += kind[0].length;
      previous = 'none';
      continue;
    }
    if (ch === ')') {
      const group = groups.length > 1 ? groups.pop()! : { risky: true, branches: 1, startAtoms: cost.atoms };
      cost.constantLog2 += Math.log2(group.branches);
      lastGroupRisky = group.risky;
      lastGroupAtoms = Math.max(1, cost.atoms - group.startAtoms + 1);
      previous = 'group';
      continue;
    }
    const bounds = ch === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 40)) : null;
    if (ch === '*' || ch === '+' || ch === '?' || bounds) {
      if (bounds) i += bounds[0].length - 1;
      if (pattern[i + 1] === '?') i++; // lazy
      if (previous === 'group' && lastGroupRisky) cost.unsafe = true;
      if (ch === '?') cost.constantLog2 += 1;
      else if (!bounds || bounds[2] === ',') cost.perLength++;
      else if (bounds[2] !== undefined) cost.ranges.push(Number(bounds[3]) - Number(bounds[1]) + 1);
      // A counted repetition repeats its item's atoms: `\p{L}{2048}` is 2048 atoms of work, not one.
      if (bounds) {
        const count = Math.max(Number(bounds[1]), bounds[3] ? Number(bounds[3]) : 0);
        if (count > 1) cost.atoms += (previous === 'group' ? lastGroupAtoms : 1) * (count - 1);
      }
      for (const group of groups) group.risky = true;
      previous = 'none';
      continue;
    }
    if (ch === '|') {
      groups[groups.length - 1]!.branches++;
      for (const group of groups) group.risky = true;
      previous = 'none';
      continue;
    }
    cost.atoms++;
    previous = 'atom';
  }
  const top = groups[0]!;
  cost.constantLog2 += Math.log2(top.branches);
  if (top.branches > 1 || groups.length > 1) cost.anchored = false;
  return cost;
}

/** log2 of the `backtrackingCost` bound for a value of `length` code units (Infinity when unbounded). */
function backtrackingStepsLog2(cost: BacktrackingCost, length: number): number {
  if (cost.unsafe) return Infinity;
  const perLength = Math.log2(length + 1);
  let log2 =
    (cost.anchored ? 0 : perLength) + cost.perLength * perLength + cost.constantLog2 + Math.log2(cost.atoms + 1);
  for (const range of cost.ranges) log2 += Math.log2(Math.max(1, Math.min(range, length + 1)));
  return log2;
}

/**
 * Whether the linear engine (no `u` flag) gives the same answer as Unicode mode on a value with astral
 * characters: true when no atom of the pattern can match a lone surrogate code unit (no `.`, negated class,
 * `\S` `\D` `\W`, word boundary, `\u` escape or literal character from U+D800 up), so an astral character
 * is an unmatchable barrier under both readings and no match can start or end inside it.
 */
function astralNeutral(pattern: string): boolean {
  return !/[.\uD800-\uFFFF]|\[\^|\\[SDWbBu]/.test(pattern.replace(/\\\\/g, ''));
}

/**
 * Compiles a pattern from the document (JSON Schema 2020-12 section 6.3.3 `pattern`, `patternProperties`
 * keys, parameter patterns: ECMA-262, unanchored) so that testing an untrusted value can never stall the
 * thread. The pattern runs on V8's linear-time engine (`l` flag) when it can. That engine has no `u` flag:
 * a value with astral characters runs on it only when the pattern is astral-neutral (`astralNeutral`: the
 * answer is then the same as in Unicode mode), and is otherwise not checked. A pattern the linear engine
 * cannot compile (Unicode mode `\p{..}` / `\u{..}`, a backreference, a lookaround, or no linear engine in the
 * runtime) runs on the backtracking engine only for values up to `MAX_BACKTRACKING_VALUE_LENGTH` whose
 * `backtrackingCost` bound is at most `MAX_BACKTRACKING_STEPS`; other values are not checked.
 * Results are cached by pattern.
 * @returns The compiled pattern, or `{reason}` (agent-facing) when it is invalid or could only run with
 *   unbounded backtracking (a quantified group holding a quantifier or an alternation). Never throws.
 */
export function compilePattern(pattern: string): CompiledPattern | { reason: string } {
  const known = compiledPatterns.get(pattern);
  if (known) return known;
  const made = makePattern(pattern);
  if (compiledPatterns.size >= 1000) compiledPatterns.clear();
  compiledPatterns.set(pattern, made);
  return made;
}

function makePattern(pattern: string): CompiledPattern | { reason: string } {
  enableLinearEngine();
  let unicode: RegExp | undefined;
  try {
    unicode = new RegExp(pattern, 'u');
  } catch {
    unicode = undefined;
  }
  let legacy: RegExp | undefined;
  try {
    legacy = new RegExp(pattern);
  } catch {
    legacy = undefined;
  }
  const backtracking = unicode ?? legacy;
  if (!backtracking)
    return { reason: `the pattern ${JSON.stringify(pattern)} is not a valid ECMA-262 regular expression` };
  const tooLong = (value: string, limit: number): { notChecked: string } => ({
    notChecked: `the value is ${value.length} characters long, past the ${limit}-character limit for testing this pattern`,
  });
  // Unicode mode changes what the pattern means (`\p{L}` is a property, not `p{L}`): then the legacy
  // reading is not the same pattern, and the linear engine (no `u`) cannot run it.
  const needsUnicode =
    unicode !== undefined && (legacy === undefined || /\\[pP]\{|\\u\{|[\uD800-\uDFFF]/.test(pattern));
  let linear: RegExp | undefined;
  if (!needsUnicode) {
    try {
      linear = new RegExp(pattern, 'l');
    } catch {
      linear = undefined; // backreferences, lookarounds, or no linear engine in this runtime
    }
  }
  if (linear) {
    const engine = linear;
    const neutral = !unicode || astralNeutral(pattern);
    return {
      engine: 'linear',
      test(value: string) {
        if (value.length > MAX_PATTERN_VALUE_LENGTH) return tooLong(value, MAX_PATTERN_VALUE_LENGTH);
        if (value.length * pattern.length > MAX_LINEAR_WORK) {
          return {
            notChecked: `the value (${value.length} characters) against this ${pattern.length}-character pattern would cost more than the linear-time budget (${MAX_LINEAR_WORK} character-states), so it was not tested`,
          };
        }
        // Without `u`, an astral character is two code units to `.` and negated classes: never backtracking for it.
        if (!neutral && /[\uD800-\uDFFF]/.test(value)) {
          return {
            notChecked:
              'the value has characters outside the Basic Multilingual Plane, which the linear-time engine reads as two characters each under this pattern',
          };
        }
        engine.lastIndex = 0;
        return engine.test(value);
      },
    };
  }
  const cost = backtrackingCost(pattern);
  if (cost.unsafe) {
    return {
      reason:
        `the pattern ${JSON.stringify(pattern)} cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) ` +
        'and may backtrack catastrophically, so it is not run on API data',
    };
  }
  return {
    engine: 'backtracking',
    test(value: string) {
      if (value.length > MAX_BACKTRACKING_VALUE_LENGTH) return tooLong(value, MAX_BACKTRACKING_VALUE_LENGTH);
      const log2 = backtrackingStepsLog2(cost, value.length);
      if (log2 > Math.log2(MAX_BACKTRACKING_STEPS)) {
        return {
          notChecked:
            `the pattern cannot run in linear time (it needs Unicode mode, a backreference or a lookaround) and on a ${value.length}-character value ` +
            `it could take up to 2^${Math.floor(log2)} backtracking steps, past the limit of ${MAX_BACKTRACKING_STEPS}`,
        };
      }
      backtracking.lastIndex = 0;
      return backtracking.test(value);
    },
  };
}
