/** Text rules shared by the request schemas of both APIs. */

/** A control character (C0, DEL, C1). */
export const CONTROL_CHARACTER = /\p{Cc}/u;

// A lone UTF-16 surrogate (valid in JSON text) has no UTF-8 form: DynamoDB would refuse it with a 500.
const LONE_SURROGATE = /\p{Cs}/u;

/** True when `s` holds no lone surrogate, i.e. it can be stored as UTF-8. */
export const wellFormed = (s: string): boolean => !LONE_SURROGATE.test(s);

/** A length check in code points, not UTF-16 units, so an emoji counts as one character. */
export const withinChars =
  (max: number) =>
  (s: string): boolean =>
    [...s].length <= max;
