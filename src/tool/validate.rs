//! Validation of a value against a [`CompiledSchema`]: an explicit stack of tasks (no recursion
//! on the value or the schema), problems collected into sinks so that `anyOf`, `oneOf` and `not`
//! can judge their branches, and a step budget.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::message;
use super::schema::{escape_token, CompiledSchema, DynamicRef, Keywords, NodeId, NodeKind};
use super::{
    ArgumentProblem, ProblemKind, MAX_PROBLEMS, MAX_VALIDATION_NESTING, MAX_VALIDATION_STEPS,
};
use crate::json::PathSegment;

/// Problems kept per branch of `anyOf`/`oneOf`/`not` (for the summary in the message).
const BRANCH_PROBLEMS: usize = 2;

/// A path into the value, as a tree of parent links (no copying per level).
#[derive(Clone, Copy)]
enum Seg<'v> {
    Root,
    Key(&'v str),
    Index(usize),
}

struct PathNode<'v> {
    parent: usize,
    seg: Seg<'v>,
}

/// Which combinator is waiting for its branches.
#[derive(Clone, Copy)]
enum Combinator {
    AnyOf,
    OneOf,
    Not,
    /// `if`: its one branch decides whether `then` or `else` applies.
    If,
    /// `contains`: one branch per item of the array, the matches counted.
    Contains,
}

/// The tasks' `scope` is the dynamic scope they run in (Core 7.1), an index into
/// [`Validator::scopes`].
enum Task<'v> {
    /// Check `value` (at `path`) against node `node`, writing problems to `sink`.
    Eval {
        node: NodeId,
        value: &'v Value,
        path: usize,
        sink: usize,
        scope: usize,
    },
    /// Start a combinator: make one sink per branch, evaluate the branches, then `Judge`.
    Combine {
        kind: Combinator,
        node: NodeId,
        value: &'v Value,
        path: usize,
        sink: usize,
        scope: usize,
    },
    /// Judge the branches, whose sinks start at `first`.
    Judge {
        kind: Combinator,
        node: NodeId,
        value: &'v Value,
        path: usize,
        sink: usize,
        first: usize,
        scope: usize,
    },
}

/// Problems found under one schema location: the first few kept, all counted.
struct Sink {
    problems: Vec<ArgumentProblem>,
    total: usize,
    keep: usize,
}

impl Sink {
    fn new(keep: usize) -> Self {
        Self {
            problems: Vec::new(),
            total: 0,
            keep,
        }
    }
}

/// What the subschemas that apply to a value evaluated of it ([`Validator::evaluated`]): every
/// member or item (`all`), or the member names, the items before `prefix` and the items at
/// `indices` (`contains`); and the names the schemas declare (`properties`), for messages.
#[derive(Default)]
struct Evaluated<'s, 'v> {
    all: bool,
    names: Vec<&'v str>,
    prefix: usize,
    indices: Vec<usize>,
    declared: Vec<&'s str>,
}

struct Validator<'s, 'v> {
    schema: &'s CompiledSchema,
    paths: Vec<PathNode<'v>>,
    /// The dynamic scopes (JSON Schema 2020-12 Core 7.1, the schema resources evaluation went
    /// through), as a tree of parent links like `paths`: (parent, resource). The first entry is
    /// the empty scope. Grows only for a schema whose `$dynamicRef`s depend on it.
    scopes: Vec<(usize, u32)>,
    sinks: Vec<Sink>,
    stack: Vec<Task<'v>>,
    steps: usize,
    /// How many runs this one is nested in ([`MAX_VALIDATION_NESTING`]).
    nesting: usize,
}

/// Checks `value`; returns the problems kept (at most [`MAX_PROBLEMS`]) and how many there were.
pub(crate) fn validate(schema: &CompiledSchema, value: &Value) -> (Vec<ArgumentProblem>, usize) {
    let (problems, total, _) = run(schema, 0, value, (0, 0), MAX_PROBLEMS, &[]);
    (problems, total)
}

/// Checks `value` against node `node` in the dynamic scope `chain` (its schema resources,
/// outermost first), `steps` of the budget already spent, inside `nesting` other runs; returns
/// the problems kept (at most `keep`), how many there were, and the steps spent in all. A run
/// nested deeper than [`MAX_VALIDATION_NESTING`] checks nothing and spends the whole budget, so
/// that validation stops as when the steps run out (a nested run is on the call stack of the one
/// that started it). (Never inlined: it has four callers, and each inlined copy of its loop
/// would add its size to the module.)
#[inline(never)]
fn run(
    schema: &CompiledSchema,
    node: NodeId,
    value: &Value,
    (steps, nesting): (usize, usize),
    keep: usize,
    chain: &[u32],
) -> (Vec<ArgumentProblem>, usize, usize) {
    if nesting > MAX_VALIDATION_NESTING {
        return (Vec::new(), 1, MAX_VALIDATION_STEPS + 1);
    }
    let mut scopes = vec![(0, u32::MAX)];
    for &resource in chain {
        scopes.push((scopes.len() - 1, resource));
    }
    let scope = scopes.len() - 1;
    let mut v = Validator {
        schema,
        paths: vec![PathNode {
            parent: 0,
            seg: Seg::Root,
        }],
        scopes,
        sinks: vec![Sink::new(keep)],
        stack: vec![Task::Eval {
            node,
            value,
            path: 0,
            sink: 0,
            scope,
        }],
        steps,
        nesting,
    };
    while let Some(task) = v.stack.pop() {
        v.steps += 1;
        if v.steps > MAX_VALIDATION_STEPS {
            break;
        }
        match task {
            Task::Eval {
                node,
                value,
                path,
                sink,
                scope,
            } => v.eval(node, value, path, sink, scope),
            Task::Combine {
                kind,
                node,
                value,
                path,
                sink,
                scope,
            } => v.combine(kind, node, value, (path, sink, scope)),
            Task::Judge {
                kind,
                node,
                value,
                path,
                sink,
                first,
                scope,
            } => v.judge(kind, node, value, (path, sink, scope), first),
        }
    }
    // Past the budget (here, or in a nested run of the last task): the problems found so far at
    // the top, and that.
    if v.steps > MAX_VALIDATION_STEPS {
        v.sinks.truncate(1);
        let problem = ArgumentProblem {
            kind: ProblemKind::TooComplex,
            path: Vec::new(),
            schema_pointer: String::new(),
            message: message::too_complex(),
        };
        v.add(0, problem);
    }
    let steps = v.steps;
    let (problems, total) = v
        .sinks
        .into_iter()
        .next()
        .map(|s| (s.problems, s.total))
        .unwrap_or_default();
    (problems, total, steps)
}

impl<'s, 'v> Validator<'s, 'v> {
    /// The dynamic scope on entering `node` from `scope` (Core 7.1): `scope` with `node`'s
    /// schema resource added when it is another than the innermost; `scope` itself when it is
    /// the same, and always when the schema has no `$dynamicRef` that depends on the scope.
    fn enter(&mut self, scope: usize, node: NodeId) -> usize {
        let Some(&resource) = self.schema.node_resources.get(node) else {
            return scope;
        };
        if self.scopes.get(scope).is_some_and(|&(_, r)| r == resource) {
            return scope;
        }
        self.scopes.push((scope, resource));
        self.scopes.len() - 1
    }

    /// The schema resources of `scope`, outermost first.
    fn chain(&self, mut scope: usize) -> Vec<u32> {
        let mut chain = Vec::new();
        while scope != 0 {
            let Some(&(parent, resource)) = self.scopes.get(scope) else {
                break;
            };
            chain.push(resource);
            scope = parent;
        }
        chain.reverse();
        chain
    }

    /// Where a `$dynamicRef` (2020-12 Core 8.2.3.2) or `$recursiveRef` (2019-09 Core 8.2.4.2)
    /// leads in `scope`: the anchored subschema of the outermost resource of the scope that
    /// defines its anchor, else its initial target.
    fn dynamic_target(&self, dynamic: &DynamicRef, scope: usize) -> NodeId {
        if dynamic.candidates.is_empty() {
            return dynamic.initial;
        }
        self.chain(scope)
            .iter()
            .find_map(|r| dynamic.candidates.iter().find(|(c, _)| c == r))
            .map_or(dynamic.initial, |&(_, node)| node)
    }

    fn add(&mut self, sink: usize, problem: ArgumentProblem) {
        if let Some(s) = self.sinks.get_mut(sink) {
            s.total += 1;
            if s.problems.len() < s.keep {
                s.problems.push(problem);
            }
        }
    }

    fn child_path(&mut self, parent: usize, seg: Seg<'v>) -> usize {
        self.paths.push(PathNode { parent, seg });
        self.paths.len() - 1
    }

    /// The path of `path` as segments, root first.
    fn segments(&self, mut path: usize) -> Vec<PathSegment> {
        let mut out = Vec::new();
        while let Some(node) = self.paths.get(path) {
            match node.seg {
                Seg::Root => break,
                Seg::Key(k) => out.push(PathSegment::Key(k.to_owned())),
                Seg::Index(i) => out.push(PathSegment::Index(i)),
            }
            path = node.parent;
        }
        out.reverse();
        out
    }

    fn pointer(&self, node: NodeId, keyword: &str) -> String {
        let base = self
            .schema
            .node(node)
            .map(|n| n.pointer.as_str())
            .unwrap_or("");
        if keyword.is_empty() {
            base.to_owned()
        } else {
            format!("{base}/{keyword}")
        }
    }

    fn problem(
        &mut self,
        sink: usize,
        kind: ProblemKind,
        path: Vec<PathSegment>,
        pointer: String,
        message: String,
    ) {
        self.add(
            sink,
            ArgumentProblem {
                kind,
                path,
                schema_pointer: pointer,
                message,
            },
        );
    }

    fn eval(&mut self, node: NodeId, value: &'v Value, path: usize, sink: usize, scope: usize) {
        let schema = self.schema;
        let Some(n) = schema.node(node) else {
            return;
        };
        let scope = self.enter(scope, node);
        let k: &Keywords = match &n.kind {
            NodeKind::Bool(true) => return,
            NodeKind::Bool(false) => {
                let segs = self.segments(path);
                let msg = message::not_allowed(&segs);
                self.problem(
                    sink,
                    ProblemKind::NotAllowed,
                    segs,
                    self.pointer(node, ""),
                    msg,
                );
                return;
            }
            NodeKind::Keywords(k) => k,
        };

        if let Some(types) = &k.types {
            if !types.iter().any(|t| t.matches(value)) {
                let segs = self.segments(path);
                let msg = message::wrong_type(&segs, types, value);
                self.problem(
                    sink,
                    ProblemKind::WrongType,
                    segs,
                    self.pointer(node, "type"),
                    msg,
                );
                // The other keywords would only repeat that the value is wrong.
                return;
            }
        }
        if let Some(c) = &k.constant {
            if !self.equal(c, value) {
                let segs = self.segments(path);
                let msg = message::not_const(&segs, c, value);
                self.problem(
                    sink,
                    ProblemKind::NotConst,
                    segs,
                    self.pointer(node, "const"),
                    msg,
                );
            }
        }
        if let Some(options) = &k.enumeration {
            if !options.iter().any(|o| self.equal(o, value)) {
                let segs = self.segments(path);
                let msg = message::not_in_enum(&segs, options, value);
                self.problem(
                    sink,
                    ProblemKind::NotInEnum,
                    segs,
                    self.pointer(node, "enum"),
                    msg,
                );
            }
        }

        // Tasks run in this order once pushed (reversed) on the stack.
        let mut next: Vec<Task<'v>> = Vec::new();
        match value {
            Value::Number(x) => self.number(node, k, x, path, sink),
            Value::String(s) => self.string(node, k, s, path, sink),
            Value::Array(items) => {
                self.array(node, k, items, path, sink);
                // `unevaluatedItems` covers the items no subschema that applies evaluated.
                let seen = k.unevaluated_items.map(|rest| {
                    let mut seen = Evaluated::default();
                    self.evaluated(node, value, &mut seen, 0, scope);
                    (rest, seen)
                });
                let unevaluated = |i: usize| {
                    let (rest, seen) = seen.as_ref()?;
                    let evaluated = seen.all || i < seen.prefix || seen.indices.contains(&i);
                    (!evaluated).then_some(*rest)
                };
                for (i, item) in items.iter().enumerate() {
                    let target = k.prefix_items.get(i).copied().or(k.items);
                    let Some(item_node) = target.or_else(|| unevaluated(i)) else {
                        continue;
                    };
                    let p = self.child_path(path, Seg::Index(i));
                    next.push(Task::Eval {
                        node: item_node,
                        value: item,
                        path: p,
                        sink,
                        scope,
                    });
                }
            }
            Value::Object(members) => {
                self.object_counts(node, k, members.len(), path, sink);
                for name in &k.required {
                    if !members.contains_key(name) {
                        let mut segs = self.segments(path);
                        segs.push(PathSegment::Key(name.clone()));
                        let msg = message::missing(&segs);
                        self.problem(
                            sink,
                            ProblemKind::MissingArgument,
                            segs,
                            self.pointer(node, "required"),
                            msg,
                        );
                    }
                }
                if let Some(names_node) = k.property_names {
                    let at = (path, sink, scope);
                    self.property_names(node, names_node, members.keys(), at);
                }
                for (name, names, keyword) in &k.dependent_required {
                    if !members.contains_key(name) {
                        continue;
                    }
                    for required in names.iter().filter(|r| !members.contains_key(*r)) {
                        let mut segs = self.segments(path);
                        let mut given = segs.clone();
                        given.push(PathSegment::Key(name.clone()));
                        segs.push(PathSegment::Key(required.clone()));
                        let msg = message::missing_dependent(&segs, &given);
                        let keyword = format!("{keyword}/{}", escape_token(name));
                        self.problem(
                            sink,
                            ProblemKind::MissingArgument,
                            segs,
                            self.pointer(node, &keyword),
                            msg,
                        );
                    }
                }
                for (key, member) in members {
                    let declared = k.property(key);
                    let mut targets: Vec<NodeId> = declared.into_iter().collect();
                    for (re, id) in &k.pattern_properties {
                        let at = (node, "patternProperties");
                        if self.regex_run(re, key, at, path, sink) == Some(true) {
                            targets.push(*id);
                        }
                    }
                    if targets.is_empty() {
                        let Some(additional) = k.additional else {
                            continue;
                        };
                        let rejects = matches!(
                            schema.node(additional).map(|n| &n.kind),
                            Some(NodeKind::Bool(false))
                        );
                        if rejects {
                            let mut expected: Vec<String> =
                                k.properties.iter().map(|(name, _)| name.clone()).collect();
                            expected.extend(
                                k.pattern_properties
                                    .iter()
                                    .map(|(re, _)| format!("/{}/", re.as_str())),
                            );
                            let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
                            let at = (node, "additionalProperties");
                            self.unknown_argument(at, key, &expected, path, sink);
                            continue;
                        }
                        targets.push(additional);
                    }
                    let p = self.child_path(path, Seg::Key(key));
                    for target in targets {
                        next.push(Task::Eval {
                            node: target,
                            value: member,
                            path: p,
                            sink,
                            scope,
                        });
                    }
                }
                // In place, like `allOf`: after the members.
                for (name, dependent) in &k.dependent_schemas {
                    if members.contains_key(name) {
                        next.push(Task::Eval {
                            node: *dependent,
                            value,
                            path,
                            sink,
                            scope,
                        });
                    }
                }
                if let Some(rest) = k.unevaluated_properties {
                    let at = (path, sink, scope);
                    self.unevaluated_properties(node, rest, value, members, at, &mut next);
                }
            }
            Value::Null | Value::Bool(_) => {}
        }
        if let Some(target) = k.reference {
            next.push(Task::Eval {
                node: target,
                value,
                path,
                sink,
                scope,
            });
        }
        if let Some(dynamic) = &k.dynamic_reference {
            next.push(Task::Eval {
                node: self.dynamic_target(dynamic, scope),
                value,
                path,
                sink,
                scope,
            });
        }
        for &branch in &k.all_of {
            next.push(Task::Eval {
                node: branch,
                value,
                path,
                sink,
                scope,
            });
        }
        for (kind, present) in [
            (Combinator::AnyOf, !k.any_of.is_empty()),
            (Combinator::OneOf, !k.one_of.is_empty()),
            (Combinator::Not, k.not.is_some()),
            // `then` and `else` without `if` do nothing (Core 10.2.2.2, 10.2.2.3).
            (
                Combinator::If,
                k.condition.is_some() && (k.then.is_some() || k.otherwise.is_some()),
            ),
            (
                Combinator::Contains,
                k.contains.is_some() && value.is_array(),
            ),
        ] {
            if present {
                next.push(Task::Combine {
                    kind,
                    node,
                    value,
                    path,
                    sink,
                    scope,
                });
            }
        }
        self.stack.extend(next.into_iter().rev());
    }

    /// `unevaluatedProperties` (Core 11.3) of `node` on the object `value`: each member that no
    /// adjacent keyword and no in-place subschema that applies evaluated ([`Self::evaluated`])
    /// is checked against `rest`; `false` reports it as unknown, naming the properties the
    /// schema declares.
    /// `at` is the object's path, the sink and the dynamic scope.
    fn unevaluated_properties(
        &mut self,
        node: NodeId,
        rest: NodeId,
        value: &'v Value,
        members: &'v serde_json::Map<String, Value>,
        (path, sink, scope): (usize, usize, usize),
        next: &mut Vec<Task<'v>>,
    ) {
        let mut seen = Evaluated::default();
        self.evaluated(node, value, &mut seen, 0, scope);
        if seen.all {
            return;
        }
        let rejects = matches!(
            self.schema.node(rest).map(|n| &n.kind),
            Some(NodeKind::Bool(false))
        );
        for (key, member) in members {
            if seen.names.contains(&key.as_str()) {
                continue;
            }
            if rejects {
                let at = (node, "unevaluatedProperties");
                self.unknown_argument(at, key, &seen.declared, path, sink);
                continue;
            }
            let p = self.child_path(path, Seg::Key(key));
            next.push(Task::Eval {
                node: rest,
                value: member,
                path: p,
                sink,
                scope,
            });
        }
    }

    /// Member `key` of the object at `path` is not allowed by `false` under `at` (a node and its
    /// keyword, `additionalProperties` or `unevaluatedProperties`); `expected` names the
    /// properties the schema declares.
    fn unknown_argument(
        &mut self,
        at: (NodeId, &str),
        key: &str,
        expected: &[&str],
        path: usize,
        sink: usize,
    ) {
        let mut segs = self.segments(path);
        segs.push(PathSegment::Key(key.to_owned()));
        let msg = message::unknown(&segs, expected);
        let pointer = self.pointer(at.0, at.1);
        self.problem(sink, ProblemKind::UnknownArgument, segs, pointer, msg);
    }

    /// Adds to `seen` what `node` evaluates of `value` (Core 11.2 and 11.3: the annotations of
    /// `properties`, `patternProperties`, `additionalProperties`, `prefixItems`, `items`,
    /// `contains` and the `unevaluated*` keywords), its own and those of its in-place subschemas
    /// that apply: `$ref`, `allOf`, `dependentSchemas`, `then` or `else`, and the branches of
    /// `anyOf` and `oneOf` and the `if` that the value matches (each checked by a run of its own on
    /// the same step budget; a subschema that does not match gives no annotations). `depth` is
    /// how far from the node asking (whose own `unevaluated*` keyword is what asks).
    fn evaluated(
        &mut self,
        node: NodeId,
        value: &'v Value,
        seen: &mut Evaluated<'s, 'v>,
        depth: usize,
        scope: usize,
    ) {
        /// How deep in-place subschemas are followed ($ref cycles end here).
        const MAX_DEPTH: usize = 32;
        let schema = self.schema;
        let Some(NodeKind::Keywords(k)) = schema.node(node).map(|n| &n.kind) else {
            return;
        };
        let scope = self.enter(scope, node);
        self.steps += 1;
        if seen.all || depth > MAX_DEPTH || self.steps > MAX_VALIDATION_STEPS {
            return;
        }
        let own = depth == 0;
        match value {
            Value::Object(members) => {
                // In name order, without repeats (no sort: its code is large for one caller).
                for (name, _) in &k.properties {
                    if let Err(at) = seen.declared.binary_search(&name.as_str()) {
                        seen.declared.insert(at, name);
                    }
                }
                if k.additional.is_some() || (!own && k.unevaluated_properties.is_some()) {
                    seen.all = true;
                    return;
                }
                for name in members.keys() {
                    let matched = k.property(name).is_some()
                        // A name the engine fails on counts as not evaluated (the run that
                        // checks the object reports the failure).
                        || k.pattern_properties.iter().any(|(re, _)| re.is_match(name) == Ok(true));
                    if matched {
                        seen.names.push(name);
                    }
                }
            }
            Value::Array(items) => {
                if k.items.is_some() || (!own && k.unevaluated_items.is_some()) {
                    seen.all = true;
                    return;
                }
                seen.prefix = seen.prefix.max(k.prefix_items.len());
                if let (Some(contains), true) = (k.contains, k.contains_evaluates) {
                    for (i, item) in items.iter().enumerate() {
                        if self.matches(contains, item, scope, depth) {
                            seen.indices.push(i);
                        }
                    }
                }
            }
            _ => return,
        }
        let mut applied: Vec<NodeId> = k.reference.iter().chain(&k.all_of).copied().collect();
        if let Some(dynamic) = &k.dynamic_reference {
            applied.push(self.dynamic_target(dynamic, scope));
        }
        for &branch in k.any_of.iter().chain(&k.one_of) {
            if self.matches(branch, value, scope, depth) {
                applied.push(branch);
            }
        }
        if let Some(condition) = k.condition {
            if self.matches(condition, value, scope, depth) {
                applied.push(condition);
                applied.extend(k.then);
            } else {
                applied.extend(k.otherwise);
            }
        }
        if let Value::Object(members) = value {
            applied.extend(
                k.dependent_schemas
                    .iter()
                    .filter(|(name, _)| members.contains_key(name))
                    .map(|&(_, id)| id),
            );
        }
        for sub in applied {
            self.evaluated(sub, value, seen, depth + 1, scope);
        }
    }

    /// Whether `value` matches `node` in the dynamic scope `scope`: a run of its own, on the same
    /// step budget, asked by [`Self::evaluated`] `depth` calls deep (which count towards
    /// [`MAX_VALIDATION_NESTING`] as the runs do: both are on the call stack).
    fn matches(&mut self, node: NodeId, value: &Value, scope: usize, depth: usize) -> bool {
        let chain = self.chain(scope);
        let (_, total, steps) = run(
            self.schema,
            node,
            value,
            (self.steps, self.nesting + 1 + depth),
            0,
            &chain,
        );
        self.steps = steps;
        total == 0
    }

    fn branches(&self, kind: Combinator, node: NodeId) -> &'s [NodeId] {
        let schema = self.schema;
        match schema.node(node).map(|n| &n.kind) {
            Some(NodeKind::Keywords(k)) => match kind {
                Combinator::AnyOf => &k.any_of,
                Combinator::OneOf => &k.one_of,
                Combinator::Not => k.not.as_slice(),
                Combinator::If => k.condition.as_slice(),
                Combinator::Contains => k.contains.as_slice(),
            },
            _ => &[],
        }
    }

    /// `at` is the value's path, the sink and the dynamic scope.
    fn combine(
        &mut self,
        kind: Combinator,
        node: NodeId,
        value: &'v Value,
        (path, sink, scope): (usize, usize, usize),
    ) {
        let branches = self.branches(kind, node);
        let first = self.sinks.len();
        self.stack.push(Task::Judge {
            kind,
            node,
            value,
            path,
            sink,
            first,
            scope,
        });
        if let (Combinator::Contains, Value::Array(items), Some(&contains)) =
            (kind, value, branches.first())
        {
            // One sink per item, which only counts (whether the item matches).
            for (i, item) in items.iter().enumerate().rev() {
                let p = self.child_path(path, Seg::Index(i));
                self.stack.push(Task::Eval {
                    node: contains,
                    value: item,
                    path: p,
                    sink: first + i,
                    scope,
                });
            }
            for _ in items {
                self.sinks.push(Sink::new(0));
            }
            return;
        }
        for (i, &branch) in branches.iter().enumerate().rev() {
            self.stack.push(Task::Eval {
                node: branch,
                value,
                path,
                sink: first + i,
                scope,
            });
        }
        for _ in branches {
            self.sinks.push(Sink::new(BRANCH_PROBLEMS));
        }
    }

    /// `at` is the value's path, the sink and the dynamic scope.
    fn judge(
        &mut self,
        kind: Combinator,
        node: NodeId,
        value: &'v Value,
        (path, sink, scope): (usize, usize, usize),
        first: usize,
    ) {
        if first > self.sinks.len() {
            return;
        }
        let results = self.sinks.split_off(first);
        if let Combinator::If | Combinator::Contains = kind {
            let matched = results.iter().filter(|s| s.total == 0).count() as u64;
            self.conditional(kind, node, value, (path, sink, scope), matched);
            return;
        }
        let passed: Vec<usize> = results
            .iter()
            .enumerate()
            .filter(|(_, s)| s.total == 0)
            .map(|(i, _)| i)
            .collect();
        let segs = self.segments(path);
        let failures = || -> Vec<Vec<String>> {
            results
                .iter()
                .map(|s| {
                    let mut msgs: Vec<String> =
                        s.problems.iter().map(|p| p.message.clone()).collect();
                    if s.total > s.problems.len() {
                        msgs.push(message::more_problems(s.total - s.problems.len()));
                    }
                    msgs
                })
                .collect()
        };
        let (problem_kind, keyword, msg) = match kind {
            Combinator::AnyOf if passed.is_empty() => (
                ProblemKind::NoMatch,
                "anyOf",
                message::no_match(&segs, "anyOf", &failures()),
            ),
            Combinator::OneOf if passed.is_empty() => (
                ProblemKind::NoMatch,
                "oneOf",
                message::no_match(&segs, "oneOf", &failures()),
            ),
            Combinator::OneOf if passed.len() > 1 => (
                ProblemKind::MultipleMatches,
                "oneOf",
                message::multiple_matches(&segs, results.len(), &passed),
            ),
            Combinator::Not if !passed.is_empty() => (
                ProblemKind::MatchesNot,
                "not",
                message::matches_not(&segs, value),
            ),
            _ => return,
        };
        self.problem(sink, problem_kind, segs, self.pointer(node, keyword), msg);
    }

    /// `propertyNames` (Core 10.3.2.4): each name, as a string, against its schema. A name is a
    /// string the value does not hold, so each is checked by a run of its own (on the same step
    /// budget, in the same dynamic scope); a string has no members, so that run has no names to
    /// check in turn. `at` is the object's path, the sink and the dynamic scope.
    fn property_names(
        &mut self,
        node: NodeId,
        names_node: NodeId,
        names: impl Iterator<Item = &'v String>,
        (path, sink, scope): (usize, usize, usize),
    ) {
        let chain = self.chain(scope);
        for name in names {
            let value = Value::String(name.clone());
            let at = (self.steps, self.nesting + 1);
            let (_, total, steps) = run(self.schema, names_node, &value, at, 0, &chain);
            self.steps = steps;
            if total > 0 {
                let mut segs = self.segments(path);
                let msg = message::property_name(&segs, name);
                segs.push(PathSegment::Key(name.clone()));
                self.problem(
                    sink,
                    ProblemKind::PropertyName,
                    segs,
                    self.pointer(node, "propertyNames"),
                    msg,
                );
            }
        }
    }

    /// The end of `if` (`matched` is 1 when it matched: `then` applies, else `else`) and of
    /// `contains` (`matched` items matched: checked against `minContains` and `maxContains`).
    fn conditional(
        &mut self,
        kind: Combinator,
        node: NodeId,
        value: &'v Value,
        (path, sink, scope): (usize, usize, usize),
        matched: u64,
    ) {
        let Some(NodeKind::Keywords(k)) = self.schema.node(node).map(|n| &n.kind) else {
            return;
        };
        if let Combinator::If = kind {
            let target = if matched == 1 { k.then } else { k.otherwise };
            if let Some(target) = target {
                self.stack.push(Task::Eval {
                    node: target,
                    value,
                    path,
                    sink,
                    scope,
                });
            }
            return;
        }
        let (min, max) = (k.min_contains, k.max_contains);
        let failed = if matched < min {
            Some((true, min, "minContains"))
        } else {
            max.filter(|m| matched > *m)
                .map(|m| (false, m, "maxContains"))
        };
        if let Some((at_least, bound, keyword)) = failed {
            let segs = self.segments(path);
            let msg = message::contains_count(&segs, at_least, bound, matched);
            // No match at all where one is enough: `contains` itself failed.
            let keyword = if keyword == "minContains" && min == 1 {
                "contains"
            } else {
                keyword
            };
            self.problem(
                sink,
                ProblemKind::ContainsCount,
                segs,
                self.pointer(node, keyword),
                msg,
            );
        }
    }

    fn number(&mut self, node: NodeId, k: &Keywords, x: &Number, path: usize, sink: usize) {
        let checks = [
            (&k.minimum, "minimum", "at least"),
            (&k.maximum, "maximum", "at most"),
            (&k.exclusive_minimum, "exclusiveMinimum", "greater than"),
            (&k.exclusive_maximum, "exclusiveMaximum", "less than"),
        ];
        for (bound, keyword, phrase) in checks {
            let Some(bound) = bound else { continue };
            let within = compare(x, bound).is_some_and(|o| match keyword {
                "minimum" => o != Ordering::Less,
                "maximum" => o != Ordering::Greater,
                "exclusiveMinimum" => o == Ordering::Greater,
                _ => o == Ordering::Less,
            });
            if !within {
                let segs = self.segments(path);
                let msg = message::out_of_range(&segs, phrase, bound, x);
                self.problem(
                    sink,
                    ProblemKind::OutOfRange,
                    segs,
                    self.pointer(node, keyword),
                    msg,
                );
            }
        }
        if let Some(m) = &k.multiple_of {
            if !is_multiple(x, m) {
                let segs = self.segments(path);
                let msg = message::not_multiple(&segs, m, x);
                self.problem(
                    sink,
                    ProblemKind::NotMultipleOf,
                    segs,
                    self.pointer(node, "multipleOf"),
                    msg,
                );
            }
        }
    }

    /// Whether `re` matches `text` (a string at `path`, or for `patternProperties` a member
    /// name of the object there); `None` when the engine failed on it (wasm: V8's backtracking
    /// out of stack over megabytes of text), reported as a `TooComplex` problem at `path` that
    /// names the keyword at `at`.
    fn regex_run(
        &mut self,
        re: &super::regex::Regex,
        text: &str,
        at: (NodeId, &str),
        path: usize,
        sink: usize,
    ) -> Option<bool> {
        match re.is_match(text) {
            Ok(found) => Some(found),
            Err(reason) => {
                let segs = self.segments(path);
                let name = (at.1 == "patternProperties").then_some(text);
                let msg = message::pattern_failed(&segs, name, re.as_str(), &reason);
                let pointer = self.pointer(at.0, at.1);
                self.problem(sink, ProblemKind::TooComplex, segs, pointer, msg);
                None
            }
        }
    }

    fn string(&mut self, node: NodeId, k: &Keywords, s: &str, path: usize, sink: usize) {
        let pattern = k.pattern.as_ref();
        let ran = pattern.map(|re| (re, self.regex_run(re, s, (node, "pattern"), path, sink)));
        if let Some((re, Some(false))) = ran {
            let segs = self.segments(path);
            let msg = message::pattern_mismatch(&segs, re.as_str(), s);
            self.problem(
                sink,
                ProblemKind::PatternMismatch,
                segs,
                self.pointer(node, "pattern"),
                msg,
            );
        }
        if k.min_length.is_none() && k.max_length.is_none() {
            return;
        }
        // Length in Unicode code points (Validation section 6.3.1), not bytes or UTF-16 units.
        let len = s.chars().count() as u64;
        for (bound, keyword, too_far) in [
            (k.min_length, "minLength", len < k.min_length.unwrap_or(0)),
            (
                k.max_length,
                "maxLength",
                k.max_length.is_some_and(|m| len > m),
            ),
        ] {
            if let (Some(bound), true) = (bound, too_far) {
                let segs = self.segments(path);
                let msg = message::string_length(&segs, keyword == "minLength", bound, len);
                self.problem(
                    sink,
                    ProblemKind::StringLength,
                    segs,
                    self.pointer(node, keyword),
                    msg,
                );
            }
        }
    }

    fn array(&mut self, node: NodeId, k: &Keywords, items: &[Value], path: usize, sink: usize) {
        let len = items.len() as u64;
        for (bound, keyword, too_far) in [
            (k.min_items, "minItems", len < k.min_items.unwrap_or(0)),
            (
                k.max_items,
                "maxItems",
                k.max_items.is_some_and(|m| len > m),
            ),
        ] {
            if let (Some(bound), true) = (bound, too_far) {
                let segs = self.segments(path);
                let msg = message::array_length(&segs, keyword == "minItems", bound, len);
                self.problem(
                    sink,
                    ProblemKind::ArrayLength,
                    segs,
                    self.pointer(node, keyword),
                    msg,
                );
            }
        }
        if k.unique_items {
            'outer: for (i, a) in items.iter().enumerate() {
                for (j, b) in items.iter().enumerate().skip(i + 1) {
                    if self.steps > MAX_VALIDATION_STEPS {
                        break 'outer;
                    }
                    if self.equal(a, b) {
                        let segs = self.segments(path);
                        let msg = message::duplicate_items(&segs, i, j);
                        self.problem(
                            sink,
                            ProblemKind::DuplicateItems,
                            segs,
                            self.pointer(node, "uniqueItems"),
                            msg,
                        );
                        break 'outer;
                    }
                }
            }
        }
    }

    fn object_counts(&mut self, node: NodeId, k: &Keywords, len: usize, path: usize, sink: usize) {
        let len = len as u64;
        for (bound, keyword, too_far) in [
            (
                k.min_properties,
                "minProperties",
                len < k.min_properties.unwrap_or(0),
            ),
            (
                k.max_properties,
                "maxProperties",
                k.max_properties.is_some_and(|m| len > m),
            ),
        ] {
            if let (Some(bound), true) = (bound, too_far) {
                let segs = self.segments(path);
                let msg = message::property_count(&segs, keyword == "minProperties", bound, len);
                self.problem(
                    sink,
                    ProblemKind::PropertyCount,
                    segs,
                    self.pointer(node, keyword),
                    msg,
                );
            }
        }
    }

    /// JSON equality (Validation section 4.2.2): numbers by value (`1` equals `1.0`), objects
    /// regardless of key order. Iterative; counts against the step budget.
    fn equal(&mut self, a: &Value, b: &Value) -> bool {
        let mut pending = vec![(a, b)];
        while let Some((x, y)) = pending.pop() {
            self.steps += 1;
            match (x, y) {
                (Value::Number(p), Value::Number(q)) => {
                    if compare(p, q) != Some(Ordering::Equal) {
                        return false;
                    }
                }
                (Value::Array(p), Value::Array(q)) => {
                    if p.len() != q.len() {
                        return false;
                    }
                    pending.extend(p.iter().zip(q));
                }
                (Value::Object(p), Value::Object(q)) => {
                    if p.len() != q.len() {
                        return false;
                    }
                    for (key, v) in p {
                        match q.get(key) {
                            Some(w) => pending.push((v, w)),
                            None => return false,
                        }
                    }
                }
                _ => {
                    if x != y {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// Compares two JSON numbers: exactly when both are integers, else as 64-bit floats.
pub(crate) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    // One negative i64 and one u64 beyond i64: the negative is smaller.
    match (a.as_i64(), b.as_u64(), a.as_u64(), b.as_i64()) {
        (Some(x), Some(_), _, _) if x < 0 => return Some(Ordering::Less),
        (_, _, Some(_), Some(y)) if y < 0 => return Some(Ordering::Greater),
        _ => {}
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// `multipleOf` (Validation section 6.2.1), decided exactly on decimals. JSON numbers are
/// decimals, so a float is taken as the decimal it is written as: its shortest round-trip digits
/// (what `JSON.stringify` and serde_json print, so `0.3` is `3e-1`, a multiple of `0.1`, while
/// `1000000001.5` is not a multiple of 2). Integers are exact. With `x = dv·10^ev` and
/// `m = dm·10^em`, `x / m` is an integer when `dm·10^em` divides `dv·10^ev`, which integer
/// arithmetic decides without a quotient that rounds or overflows (`1e308` is a multiple of `0.5`).
fn is_multiple(x: &Number, m: &Number) -> bool {
    let (Some((dv, ev)), Some((dm, em))) = (decimal(x), decimal(m)) else {
        return false;
    };
    if dm == 0 || m.as_f64().is_some_and(|b| b < 0.0) {
        return false;
    }
    if dv == 0 {
        return true;
    }
    let k = i64::from(ev) - i64::from(em);
    if k >= 0 {
        // `dm = 2^a·5^b·r`, `r` prime to 10: `dm | dv·2^k·5^k` when `r | dv`, `a ≤ k + v2(dv)`
        // and `b ≤ k + v5(dv)`.
        let (a, r) = strip(dm, 2);
        let (b, r) = strip(r, 5);
        dv % r == 0 && a <= k + strip(dv, 2).0 && b <= k + strip(dv, 5).0
    } else {
        // `dm·10^-k | dv`: `dv` is the larger unless the divisor stops growing below it.
        let mut d = u128::from(dm);
        for _ in 0..-k {
            d *= 10;
            if d > u128::from(dv) {
                return false;
            }
        }
        u128::from(dv) % d == 0
    }
}

/// How many times `p` divides `n > 0`, and what is left.
fn strip(mut n: u64, p: u64) -> (i64, u64) {
    let mut times = 0;
    while n % p == 0 {
        n /= p;
        times += 1;
    }
    (times, n)
}

/// `|n|` as `digits·10^exponent` with no trailing zero in `digits` (`0` is `(0, 0)`): an integer
/// as it is, a float as its shortest round-trip digits. `None` for a float that is not finite.
fn decimal(n: &Number) -> Option<(u64, i32)> {
    let (mut digits, mut exponent) = if let Some(u) = n.as_u64() {
        (u, 0)
    } else if let Some(i) = n.as_i64() {
        (i.unsigned_abs(), 0)
    } else {
        let x = n.as_f64().filter(|x| x.is_finite())?;
        // zmij prints at most 17 significant digits, `1e20`, `1.5e-7`, `123.45` (as serde_json).
        let mut buffer = zmij::Buffer::new();
        let text = buffer.format_finite(x.abs());
        let (mantissa, e) = text.split_once('e').unwrap_or((text, "0"));
        let mut exponent: i32 = e.parse().ok()?;
        let mut digits: u64 = 0;
        let mut fraction = false;
        for c in mantissa.bytes() {
            match c {
                b'.' => fraction = true,
                b'0'..=b'9' => {
                    digits = digits.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
                    exponent -= i32::from(fraction);
                }
                _ => return None,
            }
        }
        (digits, exponent)
    };
    if digits == 0 {
        return Some((0, 0));
    }
    while digits % 10 == 0 {
        digits /= 10;
        exponent += 1;
    }
    Some((digits, exponent))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: serde_json::Value) -> Number {
        match v {
            Value::Number(n) => n,
            other => panic!("not a number: {other}"),
        }
    }

    #[test]
    fn numbers_compare_exactly_when_they_can() {
        use serde_json::json;
        assert_eq!(compare(&n(json!(1)), &n(json!(1.0))), Some(Ordering::Equal));
        assert_eq!(
            compare(&n(json!(u64::MAX)), &n(json!(u64::MAX - 1))),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&n(json!(-1)), &n(json!(u64::MAX))),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&n(json!(u64::MAX)), &n(json!(i64::MIN))),
            Some(Ordering::Greater)
        );
        assert_eq!(compare(&n(json!(0.5)), &n(json!(1))), Some(Ordering::Less));
    }

    #[test]
    fn multiples() {
        use serde_json::json;
        let yes =
            |x: Value, m: Value| assert!(is_multiple(&n(x.clone()), &n(m.clone())), "{x} {m}");
        let no =
            |x: Value, m: Value| assert!(!is_multiple(&n(x.clone()), &n(m.clone())), "{x} {m}");
        yes(json!(0.3), json!(0.1));
        yes(json!(4.5), json!(1.5));
        yes(json!(0.0075), json!(0.0001));
        yes(json!(19.99), json!(0.01));
        yes(json!(0), json!(0.7));
        yes(json!(-0.0), json!(3));
        yes(json!(-15), json!(5));
        yes(json!(i64::MIN), json!(2));
        yes(json!(u64::MAX), json!(5));
        yes(json!(12391239123_u64), json!(1e-8));
        yes(json!(1e20), json!(5));
        yes(json!(7.0), json!(0.5));
        yes(json!(2.5e-7), json!(5e-8));
        // JSON-Schema-Test-Suite, optional/float-overflow: "all integers are multiples of 0.5".
        yes(json!(1e308), json!(0.5));
        no(json!(7), json!(2));
        no(json!(35), json!(1.5));
        no(json!(0.35), json!(0.1));
        no(json!(0.00751), json!(0.0001));
        no(json!(1e308), json!(3e-308));
        no(json!(1.0), json!(u64::MAX));
        no(json!(2.5e-7), json!(1e-7));
        no(json!(1), json!(-1));
    }

    /// Quotients of half a billion and more, where a tolerance of 1e-9 of the quotient let
    /// everything pass: each float is the decimal it is written as, and divisibility is exact.
    #[test]
    fn multiples_with_large_quotients_are_exact() {
        use serde_json::json;
        for (x, m) in [
            (json!(1000000001.5), json!(2)),
            (json!(5000000.005), json!(0.01)),
            (json!(1e20), json!(3)), // 10^20 mod 3 = 1
            (json!(3500000000.5), json!(7)),
            (json!(1000000001.0), json!(2)),
            (json!(1000000001), json!(2)),
            (json!(9007199254740993_u64), json!(2)),
            (json!(1e308), json!(0.123456789)), // test suite: "float division = inf"
        ] {
            assert!(!is_multiple(&n(x.clone()), &n(m.clone())), "{x} {m}");
        }
        for (x, m) in [
            (json!(1000000002.5), json!(0.5)),
            (json!(5000000.01), json!(0.01)),
            (json!(3500000000.0), json!(7)),
            (json!(1e20), json!(4)),
            (json!(1.7976931348623157e308), json!(1e-300)),
        ] {
            assert!(is_multiple(&n(x.clone()), &n(m.clone())), "{x} {m}");
        }
    }

    #[test]
    fn schema_multiple_of_decides_on_decimals() {
        use serde_json::json;
        let kinds = |schema: Value, x: Value| -> Vec<ProblemKind> {
            let schema = CompiledSchema::compile(&schema).expect("compiles");
            schema.validate(&x).into_iter().map(|p| p.kind).collect()
        };
        // JSON-Schema-Test-Suite, optional/float-overflow: "float division = inf".
        let schema = json!({"type": "integer", "multipleOf": 0.123456789});
        assert_eq!(kinds(schema, json!(1e308)), [ProblemKind::NotMultipleOf]);
        let schema = json!({"multipleOf": 2});
        assert_eq!(
            kinds(schema.clone(), json!(1000000001.5)),
            [ProblemKind::NotMultipleOf]
        );
        assert_eq!(kinds(schema, json!(1000000002.0)), []);
    }
}
