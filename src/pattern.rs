//! Glob patterns over part names (`/sources/*`) and MIME content types (`image/*`).
//!
//! Body schemas and the body query API select parts with these patterns. A pattern is compiled once,
//! into a small nondeterministic automaton, and then matched by simulating all of the automaton's
//! states at once: matching costs at most O(pattern length × input length), whatever the pattern.
//! No pattern makes matching exponential (there is no backtracking).
//!
//! ```
//! use agentwire::pattern::Pattern;
//!
//! let sources = Pattern::new("/sources/*")?;
//! assert!(sources.is_match("/sources/1"));
//! assert!(!sources.is_match("/sources/1/page"));
//!
//! let code = Pattern::new("/**/*.{py,rs}")?;
//! assert!(code.is_match("/main.py"));
//! assert!(code.is_match("/src/body/mod.rs"));
//!
//! // Content types: ASCII case-insensitive, and the input's parameters are ignored.
//! let text = Pattern::content_type("text/{plain,markdown}")?;
//! assert!(text.is_match("Text/Plain; charset=utf-8"));
//! assert!(!text.is_match("text/html"));
//! # Ok::<(), agentwire::pattern::PatternError>(())
//! ```
//!
//! # Syntax
//!
//! `/` separates segments. Every other character matches itself, except:
//!
//! | syntax | matches |
//! |---|---|
//! | `?` | any one character except `/` |
//! | `*` | any run of characters (possibly empty) within one segment: never `/` |
//! | `**` | zero or more whole segments; see below |
//! | `[abc]`, `[a-z]` | one character of the set or range (`[a-z0-9_]` combines them) |
//! | `[!a-z]` (or `[^a-z]`) | one character not in the set |
//! | `{a,b,c}` | any one of the comma-separated alternatives; alternatives may be empty (`{,x}`), may contain any syntax, and may nest (`{a,b{c,d}}`) |
//! | `\c` | the character `c` itself (`\*`, `\{`, `\\`, …) |
//!
//! Details:
//!
//! - A class never matches `/`, even negated or spelled out (`[/]` matches nothing). In a class, a
//!   `]` right after `[` or `[!` is a member (`[]a]`), a `-` first or last is a member, and `\`
//!   escapes the next character. A range whose start is above its end (`[z-a]`) is an error.
//! - `,` outside braces is an ordinary character; `]` outside a class is an ordinary character; a
//!   `}` outside braces is an error.
//! - `**` must be a whole segment: directly after a `/` (or at the very start of the pattern) and
//!   directly before a `/` or the end of the pattern (or, inside braces, before the `,` or `}` that
//!   ends its alternative, in which case the braces must end the pattern: `{/a/**,/b}` is valid,
//!   `{/a/**,/b}/c` is not; write `{/a/**/c,/b/c}`).
//!   `a**`, `**a`, `/{**,x}` and `***` are errors. Its meaning by position:
//!   - `/a/**/b` matches `/a/b`, `/a/x/b` and `/a/x/y/b`: the `**` stands for zero or more segments.
//!   - `/a/**` (at the end) matches everything *below* `/a` (`/a/x`, `/a/x/y`), **not `/a`
//!     itself**, like globset and `.gitignore`. Write `/a{,/**}` to match `/a` as well.
//!   - `**/b` (at the start) matches `/b`, `/a/b`, `/a/x/b` and also the relative `b`, `a/b`.
//!   - `**` alone matches every input, the empty one included.
//!   - `/**` matches every valid part name.
//! - Content-type patterns ([`Pattern::content_type`]) have the same syntax. They match ASCII
//!   case-insensitively (RFC 2045 §5.1: type and subtype are case-insensitive) and ignore the
//!   input's parameters: `text/plain; charset=utf-8` is matched as `text/plain` (the input is cut
//!   at its first `;` and trimmed of spaces and tabs). The pattern's own parameters are dropped
//!   the same way (`text/plain; charset=utf-8` as a pattern is `text/plain`), since no input
//!   could match them.
//! - A pattern matches the whole input, never a part of it.
//!
//! # Limits and errors
//!
//! A pattern is at most [`MAX_PATTERN_LEN`] bytes and nests braces at most [`MAX_BRACE_DEPTH`] deep.
//! Braces are not expanded (alternatives become branches of the automaton), so there is no limit on
//! the number of alternatives other than the pattern's length. Errors ([`PatternError`]) keep the
//! pattern and the byte offset (0-based) of the problem (a content-type pattern's: in its media
//! type, the part compiled).

// Compiling a pattern (`Pattern::new`, `content_type`, the parser and the compiler) is `#[inline]`,
// so that it is compiled in agentwire at opt-level "z" (cold code: see "Cold code in this crate" in
// src/core.rs); matching (`is_match`, the matcher) is compiled here at 3.

use std::fmt;
use std::sync::Arc;

use crate::error::ErrorCode;

/// The longest pattern accepted, in bytes (UTF-8).
pub const MAX_PATTERN_LEN: usize = 4096;

/// The deepest nesting of braces accepted (`{a,{b,{c}}}` nests 3 deep).
pub const MAX_BRACE_DEPTH: usize = 32;

/// Why a pattern does not compile. Every variant but [`Empty`](PatternError::Empty) keeps the
/// pattern, and those of a syntax error the byte offset (0-based, in the pattern's UTF-8) where the
/// problem was found. For a content-type pattern ([`Pattern::content_type`]) the pattern kept is
/// the one compiled, its media type (cut at its first `;`, spaces and tabs trimmed), and the
/// offsets are in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// The pattern is the empty string (a content-type pattern: nothing but spaces and tabs before
    /// its first `;`).
    #[error("empty pattern")]
    Empty,
    /// The pattern is longer than [`MAX_PATTERN_LEN`] bytes.
    #[error("pattern is {len} bytes long, more than the limit of {limit}")]
    TooLong {
        /// The pattern's first [`MAX_PATTERN_LEN`] bytes (cut at a character boundary).
        pattern: String,
        /// Its length in bytes.
        len: usize,
        /// The limit in bytes ([`MAX_PATTERN_LEN`]).
        limit: usize,
    },
    /// A `{` without its `}`.
    #[error("unclosed `{{` at byte {position} in pattern `{pattern}`")]
    UnclosedBrace {
        /// The pattern.
        pattern: String,
        /// Byte offset of the `{`.
        position: usize,
    },
    /// A `}` without a `{` before it.
    #[error("`}}` without `{{` at byte {position} in pattern `{pattern}`")]
    UnmatchedBrace {
        /// The pattern.
        pattern: String,
        /// Byte offset of the `}`.
        position: usize,
    },
    /// Braces nested deeper than [`MAX_BRACE_DEPTH`].
    #[error("braces nested deeper than {limit} at byte {position} in pattern `{pattern}`")]
    TooDeeplyNested {
        /// The pattern.
        pattern: String,
        /// Byte offset of the `{` that goes too deep.
        position: usize,
        /// The limit ([`MAX_BRACE_DEPTH`]).
        limit: usize,
    },
    /// A `[` without its `]`.
    #[error("unclosed `[` at byte {position} in pattern `{pattern}`")]
    UnclosedClass {
        /// The pattern.
        pattern: String,
        /// Byte offset of the `[`.
        position: usize,
    },
    /// A class range whose start is above its end, e.g. `[z-a]`.
    #[error("invalid range `{start}-{end}` at byte {position} in pattern `{pattern}`")]
    InvalidRange {
        /// The pattern.
        pattern: String,
        /// Byte offset of the range's first character.
        position: usize,
        /// The range's start.
        start: char,
        /// The range's end.
        end: char,
    },
    /// A `\` at the very end: there is nothing to escape.
    #[error("trailing `\\` at byte {position} in pattern `{pattern}`")]
    TrailingEscape {
        /// The pattern.
        pattern: String,
        /// Byte offset of the `\`.
        position: usize,
    },
    /// `**` that is not a whole segment (`a**`, `**a`, `***`, `/{**,x}`).
    #[error("`**` must be a whole segment (byte {position} in pattern `{pattern}`)")]
    InvalidRecursiveWildcard {
        /// The pattern.
        pattern: String,
        /// Byte offset of the `**` (or of what follows the braces that end with it).
        position: usize,
    },
}

impl PatternError {
    /// The pattern that failed to compile (cut to [`MAX_PATTERN_LEN`] bytes for
    /// [`TooLong`](PatternError::TooLong); empty for [`Empty`](PatternError::Empty)).
    pub fn pattern(&self) -> &str {
        match self {
            PatternError::Empty => "",
            PatternError::TooLong { pattern, .. }
            | PatternError::UnclosedBrace { pattern, .. }
            | PatternError::UnmatchedBrace { pattern, .. }
            | PatternError::TooDeeplyNested { pattern, .. }
            | PatternError::UnclosedClass { pattern, .. }
            | PatternError::InvalidRange { pattern, .. }
            | PatternError::TrailingEscape { pattern, .. }
            | PatternError::InvalidRecursiveWildcard { pattern, .. } => pattern,
        }
    }

    /// The byte offset (0-based) of the problem in the pattern; `None` for
    /// [`Empty`](PatternError::Empty) and [`TooLong`](PatternError::TooLong).
    pub fn position(&self) -> Option<usize> {
        match self {
            PatternError::Empty | PatternError::TooLong { .. } => None,
            PatternError::UnclosedBrace { position, .. }
            | PatternError::UnmatchedBrace { position, .. }
            | PatternError::TooDeeplyNested { position, .. }
            | PatternError::UnclosedClass { position, .. }
            | PatternError::InvalidRange { position, .. }
            | PatternError::TrailingEscape { position, .. }
            | PatternError::InvalidRecursiveWildcard { position, .. } => Some(*position),
        }
    }
}

impl ErrorCode for PatternError {
    fn code(&self) -> &'static str {
        match self {
            PatternError::Empty => "empty-pattern",
            PatternError::TooLong { .. } => "pattern-too-long",
            PatternError::UnclosedBrace { .. } => "unclosed-brace",
            PatternError::UnmatchedBrace { .. } => "unmatched-brace",
            PatternError::TooDeeplyNested { .. } => "braces-too-deep",
            PatternError::UnclosedClass { .. } => "unclosed-class",
            PatternError::InvalidRange { .. } => "invalid-range",
            PatternError::TrailingEscape { .. } => "trailing-escape",
            PatternError::InvalidRecursiveWildcard { .. } => "invalid-recursive-wildcard",
        }
    }

    /// `{"pattern": …, "position": …}` (byte offset, 0-based), plus `len`/`limit` for
    /// `pattern-too-long`, `limit` for `braces-too-deep` and `start`/`end` for `invalid-range`.
    #[cfg_attr(agentwire_size, optimize(size))]
    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            PatternError::Empty => Details::new().field("pattern", "").into(),
            PatternError::TooLong {
                pattern,
                len,
                limit,
            } => Details::new()
                .field("pattern", pattern)
                .field("len", len)
                .field("limit", limit)
                .into(),
            PatternError::TooDeeplyNested {
                pattern,
                position,
                limit,
            } => Details::new()
                .field("pattern", pattern)
                .field("position", position)
                .field("limit", limit)
                .into(),
            PatternError::InvalidRange {
                pattern,
                position,
                start,
                end,
            } => Details::new()
                .field("pattern", pattern)
                .field("position", position)
                .field("start", &start.to_string())
                .field("end", &end.to_string())
                .into(),
            other => Details::new()
                .field("pattern", &other.pattern())
                .field("position", &other.position())
                .into(),
        }
    }
}

/// What a pattern matches against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Mode {
    /// Part names: exact characters.
    Name,
    /// MIME types: ASCII case-insensitive, input parameters ignored.
    ContentType,
}

/// A compiled glob pattern. See the [module documentation](self) for the syntax.
///
/// Cloning is cheap (the automaton is shared). Two patterns are equal when they have the same
/// source text and the same mode (name or content type).
#[derive(Clone)]
pub struct Pattern {
    source: String,
    mode: Mode,
    matcher: Arc<Matcher>,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source && self.mode == other.mode
    }
}

impl Eq for Pattern {}

impl std::hash::Hash for Pattern {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.source.hash(state);
        self.mode.hash(state);
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ctor = match self.mode {
            Mode::Name => "Pattern::new",
            Mode::ContentType => "Pattern::content_type",
        };
        write!(f, "{ctor}({:?})", self.source)
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl serde::Serialize for Pattern {
    /// A pattern serializes as its source text.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.source)
    }
}

impl Pattern {
    /// Compiles a pattern over part names (exact, case-sensitive characters).
    ///
    /// # Errors
    ///
    /// A [`PatternError`] when the pattern is empty, longer than [`MAX_PATTERN_LEN`] bytes, or not
    /// well formed (see the [syntax](self#syntax)).
    #[inline]
    pub fn new(pattern: &str) -> Result<Self, PatternError> {
        Self::compile(pattern, Mode::Name)
    }

    /// Compiles a pattern over MIME content types, e.g. `image/*` or `text/{plain,markdown}`.
    /// Matching is ASCII case-insensitive and ignores parameters, the input's and the pattern's
    /// (`text/plain; charset=utf-8` is the pattern `text/plain`; RFC 2045 §5.1, RFC 6838 §4.2).
    ///
    /// # Errors
    ///
    /// As [`Pattern::new`].
    #[inline]
    pub fn content_type(pattern: &str) -> Result<Self, PatternError> {
        Self::compile(pattern, Mode::ContentType)
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether this is a content-type pattern (made by [`Pattern::content_type`]).
    pub fn is_content_type(&self) -> bool {
        self.mode == Mode::ContentType
    }

    /// Whether the pattern contains no wildcard at all (it matches exactly one string, up to case
    /// for content types).
    pub fn is_literal(&self) -> bool {
        self.matcher.literal.is_some()
    }

    /// Whether `input` matches the whole pattern. For a content-type pattern, `input`'s parameters
    /// (from the first `;`) are ignored and letters compare ASCII case-insensitively.
    pub fn is_match(&self, input: &str) -> bool {
        let input = match self.mode {
            Mode::Name => input,
            Mode::ContentType => essence(input),
        };
        self.matcher.is_match(input, self.mode, &mut 0)
    }

    /// Like [`is_match`](Self::is_match), also counting the automaton steps taken (one per state
    /// visited per input character), for tests that bound the work.
    #[cfg(test)]
    pub(crate) fn is_match_counting(&self, input: &str) -> (bool, u64) {
        let mut steps = 0;
        let input = match self.mode {
            Mode::Name => input,
            Mode::ContentType => essence(input),
        };
        let m = self.matcher.is_match(input, self.mode, &mut steps);
        (m, steps)
    }

    /// The number of states of the compiled automaton (a measure of the cost per input character).
    #[cfg(test)]
    pub(crate) fn state_count(&self) -> usize {
        self.matcher.states.len()
    }

    #[inline]
    fn compile(pattern: &str, mode: Mode) -> Result<Self, PatternError> {
        if pattern.is_empty() {
            return Err(PatternError::Empty);
        }
        if pattern.len() > MAX_PATTERN_LEN {
            let mut cut = MAX_PATTERN_LEN;
            while !pattern.is_char_boundary(cut) {
                cut -= 1;
            }
            return Err(PatternError::TooLong {
                pattern: pattern.get(..cut).unwrap_or_default().to_owned(),
                len: pattern.len(),
                limit: MAX_PATTERN_LEN,
            });
        }
        // A content-type pattern's own parameters are dropped as the input's are: they would
        // never match.
        let text = match mode {
            Mode::Name => pattern,
            Mode::ContentType => essence(pattern),
        };
        if text.is_empty() {
            return Err(PatternError::Empty);
        }
        let seq = Parser::new(text).parse()?;
        let literal = literal_of(&seq, mode);
        let mut compiler = Compiler {
            states: vec![State::Match],
            fold: mode == Mode::ContentType,
        };
        let start = compiler.seq(&seq, MATCH);
        Ok(Self {
            source: pattern.to_owned(),
            mode,
            matcher: Arc::new(Matcher {
                states: compiler.states,
                start,
                literal,
            }),
        })
    }
}

/// The essence of a media type: up to the first `;`, trimmed of spaces and tabs.
fn essence(input: &str) -> &str {
    let end = input.find(';').unwrap_or(input.len());
    input
        .get(..end)
        .unwrap_or(input)
        .trim_matches(|c| c == ' ' || c == '\t')
}

/// The parsed pattern: a sequence of nodes.
#[derive(Debug)]
enum Node {
    /// One exact character.
    Lit(char),
    /// `?`
    Any,
    /// `*`
    Star,
    /// `[…]`
    Class(Class),
    /// `{…,…}`; `open_end` when an alternative ends with a `**` not followed by `/` (the braces
    /// must then end the pattern).
    Alt {
        alts: Vec<Vec<Node>>,
        open_end: bool,
    },
    /// A `**` segment, with the slash around it that it absorbs.
    Globstar(Globstar),
}

/// What a `**` segment matches, by position (`seg` is `[^/]+`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Globstar {
    /// `/**/` in the middle: `/(seg/)*`.
    Mid,
    /// `/**` at the end: `(/seg)+`.
    End,
    /// `**/` at the start of the pattern: `/?(seg/)*`.
    Prefix,
    /// `**/` right after another `**/`: `(seg/)*`.
    After,
    /// `**` at the end right after another `**/`: `seg(/seg)*`.
    Tail,
    /// `**` as the whole pattern: anything.
    All,
}

impl Globstar {
    /// Whether this globstar ends with a consumed `/` (so another `**` may follow it).
    fn ends_with_slash(self) -> bool {
        matches!(self, Globstar::Mid | Globstar::Prefix | Globstar::After)
    }
}

/// A character class.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Class {
    negated: bool,
    ranges: Vec<(char, char)>,
}

impl Class {
    fn contains(&self, c: char) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi)
    }

    /// Whether the class matches `c` (never `/`). With `fold`, `c` is lowercase and upper-case
    /// members count too.
    fn matches(&self, c: char, fold: bool) -> bool {
        if c == '/' {
            return false;
        }
        let inside = self.contains(c) || (fold && self.contains(c.to_ascii_uppercase()));
        inside != self.negated
    }
}

/// One open `{` while parsing.
struct Frame {
    /// The sequence the braces belong to.
    outer: Vec<Node>,
    /// Alternatives closed so far.
    alts: Vec<Vec<Node>>,
    /// Byte offset of the `{`.
    open: usize,
}

struct Parser<'a> {
    pattern: &'a str,
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
}

impl<'a> Parser<'a> {
    #[inline]
    fn new(pattern: &'a str) -> Self {
        Self {
            pattern,
            chars: pattern.char_indices().peekable(),
        }
    }

    #[inline]
    fn source(&self) -> String {
        self.pattern.to_owned()
    }

    #[inline]
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    /// Byte offset of the next character (the pattern's length at the end).
    #[inline]
    fn offset(&mut self) -> usize {
        let len = self.pattern.len();
        self.chars.peek().map_or(len, |&(i, _)| i)
    }

    #[inline]
    fn parse(mut self) -> Result<Vec<Node>, PatternError> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut cur: Vec<Node> = Vec::new();
        while let Some((pos, c)) = self.chars.next() {
            match c {
                '\\' => match self.chars.next() {
                    Some((_, e)) => cur.push(Node::Lit(e)),
                    None => {
                        return Err(PatternError::TrailingEscape {
                            pattern: self.source(),
                            position: pos,
                        })
                    }
                },
                '?' => cur.push(Node::Any),
                '*' if self.peek() == Some('*') => {
                    self.chars.next();
                    let g = self.globstar(pos, &mut cur, !stack.is_empty())?;
                    cur.push(Node::Globstar(g));
                }
                '*' => cur.push(Node::Star),
                '[' => {
                    let class = self.class(pos)?;
                    cur.push(Node::Class(class));
                }
                '{' => {
                    if stack.len() >= MAX_BRACE_DEPTH {
                        return Err(PatternError::TooDeeplyNested {
                            pattern: self.source(),
                            position: pos,
                            limit: MAX_BRACE_DEPTH,
                        });
                    }
                    stack.push(Frame {
                        outer: std::mem::take(&mut cur),
                        alts: Vec::new(),
                        open: pos,
                    });
                }
                ',' => match stack.last_mut() {
                    Some(frame) => frame.alts.push(std::mem::take(&mut cur)),
                    None => cur.push(Node::Lit(',')),
                },
                '}' => {
                    let Some(mut frame) = stack.pop() else {
                        return Err(PatternError::UnmatchedBrace {
                            pattern: self.source(),
                            position: pos,
                        });
                    };
                    frame.alts.push(std::mem::take(&mut cur));
                    let open_end = frame.alts.iter().any(|a| ends_open(a));
                    if open_end {
                        let next = self.peek();
                        let ok = match next {
                            None => true,
                            Some(',') | Some('}') => !stack.is_empty(),
                            _ => false,
                        };
                        if !ok {
                            return Err(PatternError::InvalidRecursiveWildcard {
                                pattern: self.source(),
                                position: self.offset(),
                            });
                        }
                    }
                    cur = frame.outer;
                    cur.push(Node::Alt {
                        alts: frame.alts,
                        open_end,
                    });
                }
                other => cur.push(Node::Lit(other)),
            }
        }
        if let Some(frame) = stack.last() {
            return Err(PatternError::UnclosedBrace {
                pattern: self.source(),
                position: frame.open,
            });
        }
        Ok(cur)
    }

    /// After `**` at `pos`: decides what it means from what is around it.
    #[inline]
    fn globstar(
        &mut self,
        pos: usize,
        cur: &mut Vec<Node>,
        in_braces: bool,
    ) -> Result<Globstar, PatternError> {
        let err = |p: &Self| PatternError::InvalidRecursiveWildcard {
            pattern: p.source(),
            position: pos,
        };
        // What follows: a `/` (absorbed), or the end of the pattern / of an alternative.
        let before_slash = match self.peek() {
            Some('/') => true,
            None => false,
            Some(',') | Some('}') if in_braces => false,
            _ => return Err(err(self)),
        };
        let g = match cur.last() {
            Some(Node::Lit('/')) => {
                cur.pop();
                if before_slash {
                    Globstar::Mid
                } else {
                    Globstar::End
                }
            }
            Some(Node::Globstar(g)) if g.ends_with_slash() => {
                if before_slash {
                    Globstar::After
                } else {
                    Globstar::Tail
                }
            }
            None if !in_braces => {
                if before_slash {
                    Globstar::Prefix
                } else {
                    Globstar::All
                }
            }
            _ => return Err(err(self)),
        };
        if before_slash {
            self.chars.next();
        }
        Ok(g)
    }

    /// Parses a class after its `[` at `open`.
    #[inline]
    fn class(&mut self, open: usize) -> Result<Class, PatternError> {
        let unclosed = |p: &Self| PatternError::UnclosedClass {
            pattern: p.source(),
            position: open,
        };
        let mut negated = false;
        if matches!(self.peek(), Some('!') | Some('^')) {
            self.chars.next();
            negated = true;
        }
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let Some((pos, c)) = self.chars.next() else {
                return Err(unclosed(self));
            };
            let start = match c {
                ']' if !first => break,
                '\\' => match self.chars.next() {
                    Some((_, e)) => e,
                    None => return Err(unclosed(self)),
                },
                other => other,
            };
            first = false;
            // A range `a-z`, unless the `-` is the class's last member (`[a-]`).
            let mut lookahead = self.chars.clone();
            let is_range = matches!(lookahead.next(), Some((_, '-')))
                && !matches!(lookahead.next(), Some((_, ']')) | None);
            if !is_range {
                ranges.push((start, start));
                continue;
            }
            self.chars.next(); // the `-`
            let end = match self.chars.next() {
                Some((_, '\\')) => match self.chars.next() {
                    Some((_, e)) => e,
                    None => return Err(unclosed(self)),
                },
                Some((_, e)) => e,
                None => return Err(unclosed(self)),
            };
            if start > end {
                return Err(PatternError::InvalidRange {
                    pattern: self.source(),
                    position: pos,
                    start,
                    end,
                });
            }
            ranges.push((start, end));
        }
        Ok(Class { negated, ranges })
    }
}

/// Whether a sequence ends with a `**` that did not absorb a following `/`.
#[inline]
fn ends_open(seq: &[Node]) -> bool {
    match seq.last() {
        Some(Node::Globstar(g)) => !g.ends_with_slash(),
        Some(Node::Alt { open_end, .. }) => *open_end,
        _ => false,
    }
}

/// The single string a wildcard-free pattern matches (lowercased for content types).
#[inline]
fn literal_of(seq: &[Node], mode: Mode) -> Option<String> {
    let mut s = String::new();
    for node in seq {
        match node {
            Node::Lit(c) => s.push(*c),
            _ => return None,
        }
    }
    if mode == Mode::ContentType {
        s.make_ascii_lowercase();
    }
    Some(s)
}

/// A state of the automaton. `u32` fields are the next state's index.
#[derive(Debug)]
enum State {
    /// Accepts.
    Match,
    /// Consumes exactly this character (lowercase in content-type patterns).
    Char(char, u32),
    /// Consumes any character but `/`.
    NotSlash(u32),
    /// Consumes any character.
    AnyChar(u32),
    /// Consumes one character of the class.
    Class(Box<Class>, u32),
    /// Goes on to both states without consuming.
    Split(u32, u32),
}

const MATCH: u32 = 0;

/// Builds the automaton back to front: each node is compiled knowing the state that follows it.
struct Compiler {
    states: Vec<State>,
    fold: bool,
}

impl Compiler {
    #[inline]
    fn push(&mut self, s: State) -> u32 {
        let id = self.states.len() as u32;
        self.states.push(s);
        id
    }

    /// Sets a state reserved earlier (for loops, which point back at themselves).
    #[inline]
    fn set(&mut self, id: u32, s: State) {
        if let Some(slot) = self.states.get_mut(id as usize) {
            *slot = s;
        }
    }

    #[inline]
    fn seq(&mut self, nodes: &[Node], next: u32) -> u32 {
        let mut next = next;
        for node in nodes.iter().rev() {
            next = self.node(node, next);
        }
        next
    }

    /// `[^/]+` then `next`.
    #[inline]
    fn seg_plus(&mut self, next: u32) -> u32 {
        let lp = self.push(State::Match);
        let one = self.push(State::NotSlash(lp));
        self.set(lp, State::Split(one, next));
        one
    }

    /// `(seg/)*` then `next`; returns the loop's entry.
    #[inline]
    fn seg_slash_star(&mut self, next: u32) -> u32 {
        let lp = self.push(State::Match);
        let slash = self.push(State::Char('/', lp));
        let seg = self.seg_plus(slash);
        self.set(lp, State::Split(seg, next));
        lp
    }

    /// `(/seg)*` then `next`; returns the loop's entry.
    #[inline]
    fn slash_seg_star(&mut self, next: u32) -> u32 {
        let lp = self.push(State::Match);
        let seg = self.seg_plus(lp);
        let slash = self.push(State::Char('/', seg));
        self.set(lp, State::Split(slash, next));
        lp
    }

    #[inline]
    fn node(&mut self, node: &Node, next: u32) -> u32 {
        match node {
            Node::Lit(c) => {
                let c = if self.fold {
                    c.to_ascii_lowercase()
                } else {
                    *c
                };
                self.push(State::Char(c, next))
            }
            Node::Any => self.push(State::NotSlash(next)),
            Node::Star => {
                let lp = self.push(State::Match);
                let one = self.push(State::NotSlash(lp));
                self.set(lp, State::Split(one, next));
                lp
            }
            Node::Class(class) => self.push(State::Class(Box::new(class.clone()), next)),
            Node::Alt { alts, .. } => {
                let mut starts: Vec<u32> = alts.iter().map(|a| self.seq(a, next)).collect();
                let mut entry = starts.pop().unwrap_or(next);
                while let Some(s) = starts.pop() {
                    entry = self.push(State::Split(s, entry));
                }
                entry
            }
            Node::Globstar(g) => match g {
                Globstar::Mid => {
                    let lp = self.seg_slash_star(next);
                    self.push(State::Char('/', lp))
                }
                Globstar::After => self.seg_slash_star(next),
                Globstar::Prefix => {
                    let lp = self.seg_slash_star(next);
                    let slash = self.push(State::Char('/', lp));
                    self.push(State::Split(slash, lp))
                }
                Globstar::End => {
                    // (/seg)+ = /seg (/seg)*
                    let rest = self.slash_seg_star(next);
                    let seg = self.seg_plus(rest);
                    self.push(State::Char('/', seg))
                }
                Globstar::Tail => {
                    let rest = self.slash_seg_star(next);
                    self.seg_plus(rest)
                }
                Globstar::All => {
                    let lp = self.push(State::Match);
                    let any = self.push(State::AnyChar(lp));
                    self.set(lp, State::Split(any, next));
                    lp
                }
            },
        }
    }
}

/// The compiled automaton.
struct Matcher {
    states: Vec<State>,
    start: u32,
    /// The one string a wildcard-free pattern matches (a fast path).
    literal: Option<String>,
}

impl Matcher {
    /// Simulates the automaton on `input`: the set of live states advances one character at a time,
    /// each state visited at most once per character. `steps` counts the visits.
    fn is_match(&self, input: &str, mode: Mode, steps: &mut u64) -> bool {
        let fold = mode == Mode::ContentType;
        if let Some(lit) = &self.literal {
            *steps += 1;
            return if fold {
                lit.eq_ignore_ascii_case(input)
            } else {
                lit == input
            };
        }
        let n = self.states.len();
        let mut mark = vec![0usize; n];
        let mut generation = 1usize;
        let mut cur: Vec<u32> = Vec::new();
        let mut next: Vec<u32> = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        self.close(
            self.start, &mut cur, &mut mark, generation, &mut stack, steps,
        );
        for c in input.chars() {
            if cur.is_empty() {
                return false;
            }
            let c = if fold { c.to_ascii_lowercase() } else { c };
            generation += 1;
            for &s in &cur {
                *steps += 1;
                let to = match self.states.get(s as usize) {
                    Some(State::Char(x, to)) if *x == c => *to,
                    Some(State::NotSlash(to)) if c != '/' => *to,
                    Some(State::AnyChar(to)) => *to,
                    Some(State::Class(class, to)) if class.matches(c, fold) => *to,
                    _ => continue,
                };
                self.close(to, &mut next, &mut mark, generation, &mut stack, steps);
            }
            std::mem::swap(&mut cur, &mut next);
            next.clear();
        }
        cur.iter()
            .any(|&s| matches!(self.states.get(s as usize), Some(State::Match)))
    }

    /// Adds `from` and every state it reaches without consuming (through splits) to `list`, once
    /// per generation.
    fn close(
        &self,
        from: u32,
        list: &mut Vec<u32>,
        mark: &mut [usize],
        generation: usize,
        stack: &mut Vec<u32>,
        steps: &mut u64,
    ) {
        stack.push(from);
        while let Some(s) = stack.pop() {
            let Some(m) = mark.get_mut(s as usize) else {
                continue;
            };
            if *m == generation {
                continue;
            }
            *m = generation;
            *steps += 1;
            match self.states.get(s as usize) {
                Some(State::Split(a, b)) => {
                    stack.push(*b);
                    stack.push(*a);
                }
                Some(_) => list.push(s),
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(s: &str) -> Pattern {
        Pattern::new(s).unwrap()
    }

    #[test]
    fn star_stays_in_its_segment() {
        let pat = p("/sources/*");
        assert!(pat.is_match("/sources/1"));
        assert!(pat.is_match("/sources/"));
        assert!(!pat.is_match("/sources/1/x"));
        assert!(!pat.is_match("/sources"));
        assert!(p("/a*b").is_match("/ab"));
        assert!(p("/a*b").is_match("/axxb"));
        assert!(!p("/a*b").is_match("/ax/b"));
    }

    #[test]
    fn globstar_positions() {
        let mid = p("/a/**/b");
        for yes in ["/a/b", "/a/x/b", "/a/x/y/b"] {
            assert!(mid.is_match(yes), "{yes}");
        }
        for no in ["/a/xb", "/ab", "/a/b/c", "/a//b", "/b"] {
            assert!(!mid.is_match(no), "{no}");
        }
        let end = p("/a/**");
        assert!(end.is_match("/a/x"));
        assert!(end.is_match("/a/x/y"));
        assert!(!end.is_match("/a"));
        assert!(!end.is_match("/a/"));
        assert!(!end.is_match("/ab"));
        let both = p("/a{,/**}");
        assert!(both.is_match("/a"));
        assert!(both.is_match("/a/x/y"));
        let prefix = p("**/b");
        for yes in ["/b", "/a/b", "/a/x/b", "b", "a/b"] {
            assert!(prefix.is_match(yes), "{yes}");
        }
        assert!(!prefix.is_match("/ab"));
        assert!(p("**").is_match(""));
        assert!(p("**").is_match("/a/b/c"));
        assert!(p("/**").is_match("/a"));
        assert!(p("/**").is_match("/a/b"));
        let twice = p("/a/**/**");
        assert!(twice.is_match("/a/x"));
        assert!(!twice.is_match("/a"));
        let twice_mid = p("/**/**/x");
        assert!(twice_mid.is_match("/x"));
        assert!(twice_mid.is_match("/a/b/c/x"));
    }

    #[test]
    fn question_classes_escapes() {
        assert!(p("/?").is_match("/a"));
        assert!(!p("/?").is_match("/"));
        assert!(!p("/a?b").is_match("/a/b"));
        assert!(p("/[a-c]x").is_match("/bx"));
        assert!(!p("/[a-c]x").is_match("/dx"));
        assert!(p("/[!a-c]x").is_match("/dx"));
        assert!(!p("/[!a-c]x").is_match("//x"));
        assert!(!p("/a[/]b").is_match("/a/b"));
        assert!(p("/[]a]").is_match("/]"));
        assert!(p("/[a-]").is_match("/-"));
        assert!(p("/[\\]]").is_match("/]"));
        assert!(p("/\\*").is_match("/*"));
        assert!(!p("/\\*").is_match("/a"));
        assert!(p("/a,b").is_match("/a,b"));
        assert!(p("/a]").is_match("/a]"));
    }

    #[test]
    fn braces() {
        let pat = p("/{a,b{c,d},}x");
        for yes in ["/ax", "/bcx", "/bdx", "/x"] {
            assert!(pat.is_match(yes), "{yes}");
        }
        assert!(!pat.is_match("/bx"));
        assert!(p("{/a/**,/b}").is_match("/a/q"));
        assert!(p("{/a/**,/b}").is_match("/b"));
        assert!(p("{x,{/a/**,/b}}").is_match("/a/q"));
        assert_eq!(
            Pattern::new("{/a/**,/b}/c").unwrap_err().code(),
            "invalid-recursive-wildcard"
        );
    }

    #[test]
    fn content_types() {
        let img = Pattern::content_type("image/*").unwrap();
        assert!(img.is_match("image/png"));
        assert!(img.is_match("IMAGE/PNG"));
        assert!(img.is_match("image/svg+xml; charset=utf-8"));
        assert!(!img.is_match("text/plain"));
        let lit = Pattern::content_type("Text/Plain").unwrap();
        assert!(lit.is_literal());
        assert!(lit.is_match("text/plain;charset=utf-8"));
        assert!(lit.is_match(" text/plain "));
        let class = Pattern::content_type("text/[A-Z]*").unwrap();
        assert!(class.is_match("text/plain"));
        // The pattern's parameters are dropped as the input's are.
        let with = Pattern::content_type("text/plain; charset=utf-8").unwrap();
        assert_eq!(with.as_str(), "text/plain; charset=utf-8");
        assert!(with.is_literal());
        assert!(with.is_match("text/plain; charset=utf-8"));
        assert!(with.is_match("text/plain"));
        assert!(!with.is_match("text/html; charset=utf-8"));
        assert_eq!(
            Pattern::content_type(" ;charset=utf-8").unwrap_err().code(),
            "empty-pattern"
        );
        // Name patterns are case-sensitive.
        assert!(!p("/A").is_match("/a"));
    }

    #[test]
    fn errors_keep_pattern_and_position() {
        let cases: &[(&str, &str, Option<usize>)] = &[
            ("", "empty-pattern", None),
            ("/a/{b,c", "unclosed-brace", Some(3)),
            ("/a}", "unmatched-brace", Some(2)),
            ("/[ab", "unclosed-class", Some(1)),
            ("/[]", "unclosed-class", Some(1)),
            ("/[z-a]", "invalid-range", Some(2)),
            ("/a\\", "trailing-escape", Some(2)),
            ("/a**", "invalid-recursive-wildcard", Some(2)),
            ("/**a", "invalid-recursive-wildcard", Some(1)),
            ("/***", "invalid-recursive-wildcard", Some(1)),
            ("/{**,x}", "invalid-recursive-wildcard", Some(2)),
            ("{/a/**}x", "invalid-recursive-wildcard", Some(7)),
        ];
        for (pat, code, pos) in cases {
            let e = Pattern::new(pat).unwrap_err();
            assert_eq!(e.code(), *code, "{pat}");
            assert_eq!(e.position(), *pos, "{pat}");
            assert_eq!(e.pattern(), *pat);
            assert_eq!(e.details()["pattern"], *pat);
        }
        let long = "/".repeat(MAX_PATTERN_LEN + 1);
        let e = Pattern::new(&long).unwrap_err();
        assert_eq!(e.code(), "pattern-too-long");
        assert_eq!(e.details()["len"], MAX_PATTERN_LEN + 1);
        let deep = format!("{}{}", "{".repeat(MAX_BRACE_DEPTH + 1), "}".repeat(33));
        let e = Pattern::new(&deep).unwrap_err();
        assert_eq!(e.code(), "braces-too-deep");
        assert_eq!(e.position(), Some(MAX_BRACE_DEPTH));
        // Exactly at the limits is fine.
        let ok = format!(
            "{}{}",
            "{".repeat(MAX_BRACE_DEPTH),
            "}".repeat(MAX_BRACE_DEPTH)
        );
        assert!(Pattern::new(&ok).unwrap().is_match(""));
        assert!(Pattern::new(&"a".repeat(MAX_PATTERN_LEN)).is_ok());
    }

    /// The work is bounded by states × (input length + 1), whatever the pattern.
    fn assert_linear(pat: &Pattern, input: &str, expect: bool) {
        let (m, steps) = pat.is_match_counting(input);
        assert_eq!(m, expect, "{pat:?}");
        let bound = (pat.state_count() as u64) * (input.chars().count() as u64 + 1);
        assert!(steps <= 2 * bound, "{steps} steps > {bound}");
    }

    #[test]
    fn pathological_patterns_take_linear_work() {
        let name: String = (0..1000).map(|i| format!("/s{i}")).collect();
        assert_linear(&p("/**/**/**/**/x"), &name, false);
        assert_linear(&p("/**/**/**/**/s999"), &name, true);
        let a = "a".repeat(5000);
        assert_linear(&p("*a*a*a*a*a*b"), &a, false);
        assert_linear(&p("*a*a*a*a*a*"), &a, true);
        let braces = "{a,a{a,a{a,a}}}".repeat(20);
        assert_linear(&Pattern::new(&braces).unwrap(), &"a".repeat(60), true);
        assert_linear(&Pattern::new(&braces).unwrap(), &"a".repeat(61), false);
    }

    /// A deliberately different matcher: braces expanded, then segment by segment with
    /// backtracking. Small inputs only.
    mod reference {
        pub fn expand(p: &str) -> Vec<String> {
            // Innermost brace group first.
            let Some(close) = p.find('}') else {
                return vec![p.to_owned()];
            };
            let open = p[..close].rfind('{').unwrap();
            let (pre, inner, post) = (&p[..open], &p[open + 1..close], &p[close + 1..]);
            inner
                .split(',')
                .flat_map(|alt| expand(&format!("{pre}{alt}{post}")))
                .collect()
        }

        fn seg_match(p: &[char], s: &[char]) -> bool {
            match p.first() {
                None => s.is_empty(),
                Some('*') => (0..=s.len()).any(|k| seg_match(&p[1..], &s[k..])),
                Some('?') => !s.is_empty() && seg_match(&p[1..], &s[1..]),
                Some('[') => {
                    let end = p.iter().position(|&c| c == ']').unwrap();
                    let neg = p[1] == '!';
                    let set = &p[if neg { 2 } else { 1 }..end];
                    !s.is_empty()
                        && (set.contains(&s[0]) != neg)
                        && seg_match(&p[end + 1..], &s[1..])
                }
                Some(c) => s.first() == Some(c) && seg_match(&p[1..], &s[1..]),
            }
        }

        fn segs_match(p: &[&str], s: &[&str], at_start: bool) -> bool {
            match p.first() {
                None => s.is_empty(),
                Some(&"G") if at_start && p.len() == 1 => true,
                // A trailing `/**`: one or more non-empty segments.
                Some(&"G") if p.len() == 1 => !s.is_empty() && s.iter().all(|x| !x.is_empty()),
                Some(&"G") => {
                    segs_match(&p[1..], s, false)
                        || (!s.is_empty()
                            && (!s[0].is_empty() || at_start)
                            && segs_match(p, &s[1..], false))
                }
                Some(seg) => {
                    !s.is_empty()
                        && seg_match(
                            &seg.chars().collect::<Vec<_>>(),
                            &s[0].chars().collect::<Vec<_>>(),
                        )
                        && segs_match(&p[1..], &s[1..], false)
                }
            }
        }

        /// `**` written as `G` so that two `*` brought together by an expansion stay two stars.
        pub fn is_match(p: &str, s: &str) -> bool {
            expand(&p.replace("**", "G")).iter().any(|e| {
                let ps: Vec<&str> = e.split('/').collect();
                let ss: Vec<&str> = s.split('/').collect();
                segs_match(&ps, &ss, true)
            })
        }
    }

    proptest! {
        #[test]
        fn agrees_with_reference(
            tokens in proptest::collection::vec(
                prop::sample::select(vec![
                    "a", "b", "/", "*", "?", "**", "{a,b}", "{,/**}", "{/**,b}", "[ab]", "[!a]", "{a,}",
                ]),
                1..7,
            ),
            input in "[ab/]{0,8}",
        ) {
            let pat = tokens.concat();
            if let Ok(compiled) = Pattern::new(&pat) {
                // Every expansion must have `**` as whole segments.
                for e in reference::expand(&pat.replace("**", "G")) {
                    for seg in e.split('/') {
                        prop_assert!(!seg.contains('G') || seg == "G", "{pat} -> {e}");
                    }
                }
                prop_assert_eq!(compiled.is_match(&input), reference::is_match(&pat, &input), "{} on {}", pat, input);
            }
        }
    }
}
