//! Resolving a URI reference against a base URI ([RFC 3986] section 5.2), for the `$id`s and
//! `$ref`s of a schema (JSON Schema Core section 8.2): strings only, no percent-decoding, no
//! normalization beyond removing dot segments, and no parsing of hosts (a schema's URIs are
//! identifiers, compared as strings after resolution).
//!
//! [RFC 3986]: https://www.rfc-editor.org/rfc/rfc3986

/// The five components of a URI reference (RFC 3986 section 3, Appendix B); `None` where the
/// component (with its delimiter) is absent.
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn parts(uri: &str) -> Parts<'_> {
    let (rest, fragment) = match uri.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (uri, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    // A scheme is what comes before a `:` that precedes every `/` (Appendix B's regex).
    let (scheme, rest) = match rest.find([':', '/']) {
        Some(i) if i > 0 && rest.as_bytes().get(i) == Some(&b':') => {
            (rest.get(..i), rest.get(i + 1..).unwrap_or(""))
        }
        _ => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (after.get(..end), after.get(end..).unwrap_or(""))
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

/// `reference` resolved against `base` (RFC 3986 section 5.2.2, strict: a reference with a
/// scheme keeps it even when it is the base's).
pub(crate) fn resolve(base: &str, reference: &str) -> String {
    let b = parts(base);
    let r = parts(reference);
    let (scheme, authority, path, query);
    if r.scheme.is_some() || r.authority.is_some() {
        // The reference's own scheme (or the base's) and authority.
        scheme = r.scheme.or(b.scheme);
        authority = r.authority;
        path = remove_dot_segments(r.path);
        query = r.query;
    } else {
        scheme = b.scheme;
        authority = b.authority;
        if r.path.is_empty() {
            path = b.path.to_owned();
            query = r.query.or(b.query);
        } else {
            path = if r.path.starts_with('/') {
                remove_dot_segments(r.path)
            } else {
                remove_dot_segments(&merge(&b, r.path))
            };
            query = r.query;
        }
    }
    // Section 5.3: recomposition.
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = r.fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// Section 5.2.3: the reference's path appended to the base's directory.
fn merge(base: &Parts<'_>, path: &str) -> String {
    if base.authority.is_some() && base.path.is_empty() {
        return format!("/{path}");
    }
    match base.path.rfind('/') {
        Some(i) => format!("{}{path}", base.path.get(..=i).unwrap_or("")),
        None => path.to_owned(),
    }
}

/// Section 5.2.4: `.` and `..` segments removed.
fn remove_dot_segments(path: &str) -> String {
    let mut input = path;
    let mut output = String::with_capacity(path.len());
    while !input.is_empty() {
        if let Some(rest) = input.strip_prefix("../") {
            input = rest;
        } else if let Some(rest) = input.strip_prefix("./") {
            input = rest;
        } else if input.starts_with("/./") {
            input = input.get(2..).unwrap_or("");
        } else if input == "/." {
            input = "/";
        } else if input.starts_with("/../") || input == "/.." {
            input = if input == "/.." {
                "/"
            } else {
                input.get(3..).unwrap_or("")
            };
            let cut = output.rfind('/').unwrap_or(0);
            output.truncate(cut);
        } else if input == "." || input == ".." {
            input = "";
        } else {
            // The first segment, with its leading `/`, moves to the output.
            let start = usize::from(input.starts_with('/'));
            let end = input
                .get(start..)
                .and_then(|s| s.find('/'))
                .map_or(input.len(), |i| i + start);
            output.push_str(input.get(..end).unwrap_or(""));
            input = input.get(end..).unwrap_or("");
        }
    }
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3986 section 5.4's examples, normal and abnormal, against its base.
    #[test]
    fn the_rfc_examples() {
        let base = "http://a/b/c/d;p?q";
        let cases = [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"),
            ("g;x", "http://a/b/c/g;x"),
            ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("./", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("../../../../g", "http://a/g"),
            ("/./g", "http://a/g"),
            ("/../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            (".g", "http://a/b/c/.g"),
            ("g..", "http://a/b/c/g.."),
            ("..g", "http://a/b/c/..g"),
            ("./../g", "http://a/b/g"),
            ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"),
            ("g/../h", "http://a/b/c/h"),
            ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
            ("g;x=1/../y", "http://a/b/c/y"),
            ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g?y/../x", "http://a/b/c/g?y/../x"),
            ("g#s/./x", "http://a/b/c/g#s/./x"),
            ("g#s/../x", "http://a/b/c/g#s/../x"),
            ("http:g", "http:g"),
        ];
        for (reference, want) in cases {
            assert_eq!(resolve(base, reference), want, "{reference}");
        }
    }

    /// Any strings: no panic; a URI with a scheme, once resolved, resolves to itself again (its
    /// dot segments are gone, RFC 3986 section 5.2.4; a base's own path is kept as it is when
    /// the reference has none, so the first resolution may still change it).
    #[test]
    fn any_strings() {
        let pieces = [
            "a", "b:", "/", ".", "..", "//", "?", "#", "%2F", "x.json", ":", "é",
        ];
        let mut x: u32 = 0x2545_F491;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as usize
        };
        for _ in 0..20_000 {
            let mut make = || {
                let n = next() % 7;
                (0..n)
                    .map(|_| pieces[next() % pieces.len()])
                    .collect::<String>()
            };
            let (base, reference) = (make(), make());
            let resolved = resolve(&base, &reference);
            if parts(&resolved).scheme.is_some() {
                let once = resolve(&base, &resolved);
                assert_eq!(resolve(&base, &once), once, "{base:?} {reference:?}");
            }
        }
    }

    #[test]
    fn schema_identifiers() {
        assert_eq!(resolve("", "tree.json"), "tree.json");
        assert_eq!(resolve("", "#/$defs/a"), "#/$defs/a");
        assert_eq!(
            resolve("urn:uuid:deadbeef-1234", "#/$defs/a"),
            "urn:uuid:deadbeef-1234#/$defs/a"
        );
        assert_eq!(
            resolve("http://example.com/root.json", "nested/b.json#x"),
            "http://example.com/nested/b.json#x"
        );
        assert_eq!(
            resolve("file:///folder/file.json", "other.json"),
            "file:///folder/other.json"
        );
    }
}
