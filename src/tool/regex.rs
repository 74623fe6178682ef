//! The regular expressions of JSON Schema's `pattern` and `patternProperties` (Validation
//! section 6.3.3, Core section 10.3.2.2): ECMA-262 regular expressions, not anchored (`"a"`
//! matches `"cat"`), compiled by the host rather than by an engine of agentwire's own.
//!
//! - **In wasm**: JavaScript's own `RegExp`, with the `u` flag (code points, and the strict
//!   syntax of Unicode mode), as JSON Schema and Ajv read them; exactly ECMA-262.
//! - **Natively**: the [`regress`] crate, an ECMA-262 engine in Rust, with the same `u` flag.
//!   The wasm module carries no regular-expression engine.

use std::fmt;

/// A compiled `pattern`: `Regex::new("^[a-z]+$")?.is_match("abc")`.
#[derive(Clone)]
pub struct Regex {
    source: String,
    #[cfg(target_arch = "wasm32")]
    re: js_sys::RegExp,
    /// `RegExp.prototype.test`, called through `Function.call`, which catches what it throws.
    #[cfg(target_arch = "wasm32")]
    test: js_sys::Function,
    #[cfg(not(target_arch = "wasm32"))]
    re: regress::Regex,
}

impl Regex {
    /// Compiles `pattern`.
    ///
    /// # Errors
    ///
    /// The engine's message when `pattern` is not a regular expression it reads (in wasm, the
    /// `SyntaxError` of `new RegExp(pattern, "u")`, or of its first run, which is when V8
    /// compiles it), or when it nests groups more than 256 levels deep (in both builds: regress
    /// parses groups recursively, and a pattern nested some thousands of groups deep overflowed
    /// a 2 MiB thread's stack, which aborts the process; V8 compiled 11,000 nested groups only
    /// at the first `test`, whose "Stack overflow" `SyntaxError` then went through the module).
    pub fn new(pattern: &str) -> Result<Self, String> {
        if group_depth(pattern) > MAX_GROUP_DEPTH {
            return Err(format!(
                "the pattern nests groups more than {MAX_GROUP_DEPTH} levels deep"
            ));
        }
        #[cfg(target_arch = "wasm32")]
        {
            use wasm_bindgen::JsCast;
            let message = |e: &wasm_bindgen::JsValue| {
                e.dyn_ref::<js_sys::Error>().map_or_else(
                    || "invalid regular expression".to_owned(),
                    |e| String::from(e.message()),
                )
            };
            let args = js_sys::Array::of2(&pattern.into(), &"u".into());
            let constructor: js_sys::Function = js_sys::RegExp::new("", "").constructor();
            let re: js_sys::RegExp = js_sys::Reflect::construct(&constructor, &args)
                .map_err(|e| message(&e))?
                .unchecked_into();
            let test = js_sys::Reflect::get(&re, &"test".into())
                .ok()
                .and_then(|t| t.dyn_into::<js_sys::Function>().ok())
                .ok_or_else(|| "RegExp.prototype.test is not a function".to_owned())?;
            let regex = Self {
                source: pattern.to_owned(),
                re,
                test,
            };
            regex.is_match("")?;
            Ok(regex)
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            regress::Regex::with_flags(pattern, "u")
                .map(|re| Self {
                    source: pattern.to_owned(),
                    re,
                })
                .map_err(|e| e.to_string())
        }
    }

    /// Whether the expression matches somewhere in `text`.
    ///
    /// # Errors
    ///
    /// In wasm, what `RegExp.prototype.test` threw, as `"<name>: <message>"`: V8's backtracking
    /// runs out of stack on some patterns over a few megabytes of text (`RangeError: Maximum
    /// call stack size exceeded`; `^((a)|(b))*$` over 2.1 MB). Natively never.
    pub fn is_match(&self, text: &str) -> Result<bool, String> {
        #[cfg(target_arch = "wasm32")]
        {
            match self.test.call1(&self.re, &text.into()) {
                Ok(found) => Ok(found.is_truthy()),
                Err(e) => Err(
                    wasm_bindgen::JsCast::dyn_ref::<js_sys::Error>(&e).map_or_else(
                        || "the regular expression engine failed".to_owned(),
                        |e| format!("{}: {}", String::from(e.name()), String::from(e.message())),
                    ),
                ),
            }
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            Ok(self.re.find(text).is_some())
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }
}

/// Deepest nesting of groups a pattern may have (see [`Regex::new`]).
const MAX_GROUP_DEPTH: usize = 256;

/// How deeply `pattern` nests its groups: the most `(` open at once, not counting an escaped one
/// (`\(`) or one inside a character class (`[(]`).
fn group_depth(pattern: &str) -> usize {
    let (mut depth, mut deepest, mut in_class) = (0usize, 0usize, false);
    let mut bytes = pattern.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' => {
                bytes.next();
            }
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'(' if !in_class => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' if !in_class => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

impl fmt::Debug for Regex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Regex").field(&self.source).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_not_anchored() {
        let re = Regex::new("a+").unwrap();
        assert_eq!(re.is_match("caat"), Ok(true));
        assert_eq!(re.is_match("xyz"), Ok(false));
        assert_eq!(
            Regex::new("^\\d{4}-\\d{2}$").unwrap().is_match("2026-11"),
            Ok(true)
        );
        assert!(Regex::new("(").is_err());
        assert_eq!(Regex::new("x").unwrap().as_str(), "x");
    }

    #[test]
    fn groups_nested_too_deeply_are_refused_not_a_stack_overflow() {
        // 5,000 nested groups overflowed this (2 MiB) test thread's stack in regress's parser.
        let deep = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
        let e = Regex::new(&deep(5000)).unwrap_err();
        assert_eq!(e, "the pattern nests groups more than 256 levels deep");
        assert_eq!(Regex::new(&deep(256)).unwrap().is_match("a"), Ok(true));
        // Escaped parentheses and those in a class are not groups.
        let literal = format!("{}{}", "\\(".repeat(300), "[(]".repeat(300));
        assert!(Regex::new(&literal).is_ok());
    }
}
