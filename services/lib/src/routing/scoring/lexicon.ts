/**
 * The words and phrases the score looks for, as plain data. A phrase is
 * written with single spaces and matches its words separated by one space or
 * one hyphen ("step by step", "step-by-step"). Every form is listed
 * explicitly (no stemming), so what counts is exactly what is written here.
 * Matching ignores case, except for code keywords, which must be lower-case
 * (`const`) and SQL keywords, which must be upper-case (`SELECT`).
 */

/** Each reasoning cue counts once however often, and in however many forms, it occurs. */
export const REASONING_CUES = {
  step_by_step: ['step by step'],
  analyze: ['analyze', 'analyse', 'analyzes', 'analyses', 'analyzed', 'analysed', 'analyzing', 'analysing', 'analysis'],
  compare: ['compare', 'compares', 'compared', 'comparing', 'comparison', 'comparisons'],
  plan: ['plan', 'plans', 'planning'],
  why: ['why'],
  explain: ['explain', 'explains', 'explained', 'explaining', 'explanation', 'explanations'],
  evaluate: ['evaluate', 'evaluates', 'evaluated', 'evaluating', 'evaluation', 'evaluations'],
  trade_offs: ['tradeoff', 'tradeoffs', 'trade off', 'trade offs', 'pros and cons'],
  design: ['design', 'designs', 'designing', 'architect', 'architects', 'architecture', 'architectures', 'architectural'],
  root_cause: ['root cause', 'root causes'],
  optimize: ['optimize', 'optimise', 'optimizes', 'optimises', 'optimized', 'optimised', 'optimizing', 'optimising', 'optimization', 'optimisation'],
  justify: ['justify', 'justifies', 'justified', 'justifying', 'justification'],
  think_through: ['think through', 'think carefully', 'think hard'],
  strategy: ['strategy', 'strategies', 'strategic'],
  in_depth: ['in depth'],
  critique: ['critique', 'criticize', 'criticise'],
  implications: ['implication', 'implications'],
} as const satisfies Record<string, readonly string[]>;

export type ReasoningCue = keyof typeof REASONING_CUES;

/** The kinds of mathematical content; each counts once. `latex` and `equation` are found by shape, not by word. */
export const MATH_KIND_NAMES = ['latex', 'equation', 'vocabulary', 'proof'] as const;
export type MathKind = (typeof MATH_KIND_NAMES)[number];

export const MATH_WORDS: Record<'vocabulary' | 'proof', readonly string[]> = {
  vocabulary: [
    'integral', 'integrals', 'integrate', 'derivative', 'derivatives', 'differentiate', 'differentiation',
    'eigenvalue', 'eigenvalues', 'eigenvector', 'eigenvectors', 'matrix', 'matrices', 'polynomial', 'polynomials',
    'logarithm', 'logarithms', 'probability', 'probabilities', 'variance', 'calculus', 'algebra', 'algebraic',
    'geometry', 'geometric', 'trigonometry', 'trigonometric', 'equation', 'equations', 'vector space', 'vector spaces',
    'modulo', 'combinatorics', 'combinatorial',
  ],
  proof: ['prove', 'proof', 'proofs', 'theorem', 'lemma', 'corollary', 'show that', 'by induction', 'derive', 'derivation', 'qed'],
};

/** LaTeX commands (after a backslash) that mark mathematical content. */
export const LATEX_COMMANDS = [
  'frac', 'int', 'iint', 'sum', 'prod', 'sqrt', 'lim', 'begin', 'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'theta',
  'lambda', 'mu', 'sigma', 'pi', 'infty', 'partial', 'cdot', 'times', 'mathbb', 'mathrm', 'le', 'leq', 'ge', 'geq', 'neq',
] as const;

/** Words about programming: a request to write or fix code, with no code in it. `c` counts only as C++ or C#. */
export const CODE_WORDS: readonly string[] = [
  'python', 'javascript', 'typescript', 'java', 'golang', 'rust', 'kotlin', 'swift', 'ruby', 'php', 'sql', 'bash',
  'regex', 'json', 'yaml', 'api', 'compile', 'compiler', 'compiled', 'compiling', 'refactor', 'refactoring',
  'refactored', 'debug', 'debugging', 'debugger', 'bug', 'bugs', 'stacktrace', 'stack trace', 'stack traces',
  'exception', 'exceptions', 'unit test', 'unit tests', 'algorithm', 'algorithms', 'script', 'scripts', 'function',
  'functions', 'recursion', 'recursive', 'runtime', 'codebase', 'repository',
];

/** Keywords that start a code shape; the scanner checks what follows them. */
export const CODE_KEYWORDS = {
  /** `function name(`, `def name(`, `fn name(`, `func name(` */
  definition: ['function', 'def', 'fn', 'func'],
  /** `const name =`, `let name =`, `var name =` */
  declaration: ['const', 'let', 'var'],
  /** first word of a line, followed by a name: `import x`, `from x`, `using x`, `package x` */
  import: ['import', 'from', 'using', 'package'],
  /** upper-case `SELECT ... FROM` within 200 characters */
  sql: ['select', 'from'],
  /** `Traceback (most recent call last)` */
  traceback: ['traceback'],
  /** `c++`, `c#` */
  language_c: ['c'],
} as const satisfies Record<string, readonly string[]>;

export type CodeKeyword = keyof typeof CODE_KEYWORDS;

/** The shapes of source code the scanner recognizes; each counts once. */
export const CODE_SHAPES = [
  'definition', // function name(
  'declaration', // const name =
  'arrow', // =>
  'import', // import line
  'line_end', // a line ending in ; { or }
  'sql', // SELECT ... FROM
  'stack_trace', // Traceback (most recent call last), or a frame location (file.js:10:5)
  'method_call', // object.method(
  'markup', // <tag> or </tag>
] as const;
export type CodeShape = (typeof CODE_SHAPES)[number];
