// Its ES module build: the package's `main` is a UMD build whose requires do not bundle.
import { type ParseError, parse, printParseErrorCode } from "jsonc-parser/lib/esm/main.js";

/**
 * Where a JSON text first breaks the grammar and what is wrong there, in words that never quote
 * the text: JSON.parse's own messages quote the text around the error, and an input file may
 * hold a credential. The scanning is jsonc-parser's, in strict JSON mode (no comments, no
 * trailing commas); it reports offsets, never content.
 */
export interface JsonSyntaxError {
  /** 1-based line of the first error. */
  line: number;
  /** 1-based column (in UTF-16 code units, as editors count most text) of the first error. */
  column: number;
  /** What is wrong there; names characters by kind, never by content. */
  problem: string;
}

const VALUE_KINDS = "a string in double quotes, a number, true, false, null, an object or an array";

/** jsonc-parser's error codes (by name: its enum is a const enum), in words. */
const PROBLEMS: Record<ReturnType<typeof printParseErrorCode>, string> = {
  InvalidSymbol: `an unexpected character or word (a JSON value is ${VALUE_KINDS})`,
  InvalidNumberFormat: "an invalid number",
  PropertyNameExpected:
    "a property name in double quotes is expected here (a trailing comma before } is not allowed)",
  ValueExpected: `a value is expected here (${VALUE_KINDS}; a trailing comma is not allowed)`,
  ColonExpected: "a : is missing after the property name",
  CommaExpected: "a , is missing between two values",
  CloseBraceExpected: "a closing } is missing",
  CloseBracketExpected: "a closing ] is missing",
  EndOfFileExpected: "more text after the JSON value (one file holds one value)",
  InvalidCommentToken: "a comment (JSON has none)",
  UnexpectedEndOfComment: "a comment (JSON has none)",
  UnexpectedEndOfString: 'a string that is not closed (a closing " is missing)',
  UnexpectedEndOfNumber: "a number that is cut short",
  InvalidUnicode: "a \\u escape needs four hexadecimal digits",
  InvalidEscapeCharacter:
    'an invalid escape in a string (\\ may be followed by ", \\, /, b, f, n, r, t or u)',
  InvalidCharacter:
    "a control character inside a string (write it as an escape such as \\n or \\t)",
  "<unknown ParseErrorCode>": "a syntax error",
};

function position(text: string, offset: number, problem: string): JsonSyntaxError {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1, problem };
}

/** The first syntax error of `text`, or undefined when it finds none. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  if (text.trim() === "")
    return position(text, 0, "the file is empty; it must hold one JSON value");
  if (text.startsWith("\uFEFF")) {
    return position(
      text,
      0,
      "the file starts with a byte order mark; save it as UTF-8 without one",
    );
  }
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  return first === undefined
    ? undefined
    : position(text, first.offset, PROBLEMS[printParseErrorCode(first.error)]);
}
