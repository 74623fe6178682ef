//! Folding Agent API events into a live response.

use std::collections::HashMap;

use serde::Serialize;

use super::event::{error_info, RawEvent};
use super::model::{
    AgentResponse, Content, ContentKind, ErrorInfo, Message, MessageType, RunStatus,
};
use super::AgentApiError;
use crate::error::ErrorCode;
pub use crate::error::Severity;
use crate::sse::{SseDecoder, SseItem, SseOptions};
use crate::wire::JsonMap;

/// Options of [`Assembler`] and [`AgentStream`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AssemblerOptions {
    /// Record [`StreamUpdate`]s (default `true`). With `false` the assembler only builds the
    /// response (for callers that want the final result, not live updates).
    pub updates: bool,
    /// Batched delivery: within one [`AgentStream::feed`] (one network chunk), consecutive text deltas
    /// of the same content are merged into one [`StreamUpdate::TextDelta`]. Default `false` (one
    /// update per event).
    pub coalesce: bool,
    /// Options of the SSE decoder ([`AgentStream`] only).
    pub sse: SseOptions,
}

impl Default for AssemblerOptions {
    fn default() -> Self {
        Self {
            updates: true,
            coalesce: false,
            sse: SseOptions::default(),
        }
    }
}

/// A change to the assembled response, in stream order.
///
/// Updates never repeat accumulated text: a text delta carries only the new text, and a whole
/// message or content is sent only when its own event arrives (start, replacement, completion), so
/// the work of delivering a stream is linear in its size.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum StreamUpdate {
    /// The response envelope changed (id, status, usage, error…). Its `output` is empty here:
    /// messages arrive as their own updates, and [`StreamUpdate::Done`] has the whole response.
    Response {
        /// The envelope.
        response: AgentResponse,
    },
    /// A message appeared or changed (status, role, metadata, or its contents on completion).
    Message {
        /// The whole message as assembled so far.
        message: Message,
    },
    /// A content item appeared, was replaced, or completed.
    Content {
        /// The message it belongs to.
        msg_id: String,
        /// Its `index`.
        index: u32,
        /// The whole content item as assembled so far.
        content: Content,
    },
    /// Text appended to a `text` content.
    TextDelta {
        /// The message.
        msg_id: String,
        /// The content's `index`.
        index: u32,
        /// The appended text.
        delta: String,
    },
    /// A `data` delta merged into a `data` content (the protocol's merge: strings and lists
    /// concatenate, numbers add, objects merge recursively).
    DataDelta {
        /// The message.
        msg_id: String,
        /// The content's `index`.
        index: u32,
        /// The delta as sent.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
        delta: serde_json::Value,
    },
    /// A problem: malformed input (skipped and kept here), an agent error, a stream that broke.
    Issue {
        /// Warning (tolerated) or error.
        severity: Severity,
        /// The error's stable code (see [`AgentApiError`]).
        code: String,
        /// A readable message.
        message: String,
        /// Structured details, including the offending input.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
        details: serde_json::Value,
        /// The typed error (Rust only).
        #[serde(skip)]
        #[cfg_attr(target_arch = "wasm32", tsify(skip))]
        error: Box<AgentApiError>,
    },
    /// The response reached a terminal status, or the stream ended: the whole response.
    Done {
        /// The assembled response.
        response: AgentResponse,
    },
}

impl StreamUpdate {
    fn issue(severity: Severity, error: AgentApiError) -> Self {
        StreamUpdate::Issue {
            severity,
            code: error.code().to_owned(),
            message: error.to_string(),
            details: error.details(),
            error: Box::new(error),
        }
    }
}

/// A pending update: owned, or a range of a text content's accumulated text (so a delta's text is
/// neither copied nor allocated until it is delivered).
#[derive(Debug, Clone)]
enum Pending {
    Owned(Box<StreamUpdate>),
    Text {
        msg: usize,
        pos: usize,
        start: usize,
        end: usize,
    },
}

/// Folds Agent API events into an [`AgentResponse`], and records a [`StreamUpdate`] for each change.
///
/// Rules (the protocol's, plus what real servers need; see `shared/fixtures/agentscope-runtime`):
/// - `object: "content"` with `delta: true` appends to `content[index]` of message `msg_id` (text and
///   `image_url` concatenate; `data` merges as the protocol's builder does); otherwise it replaces it.
///   A missing `index` means the last content for a delta, a new one otherwise.
/// - Contents may arrive before any `message` event for their `msg_id`: the message is created
///   (type `message`, status `in_progress`) and filled in when its event comes.
/// - `object: "message"` and `object: "response"` set their fields; a message's or response's
///   contents/`output`, when sent, are reconciled with what the deltas built (the server's version
///   wins; a difference is a [`AgentApiError::ContentMismatch`] warning; a streamed message missing
///   from the final `output` is kept and reported).
/// - `{"error": …}` without `object` fails the response. A terminal response status ends it; at
///   [`finish`](Assembler::finish) a response that never reached one is marked `incomplete`.
/// - Malformed events are skipped, reported as warnings with their data, and never stop the stream.
///
/// Messages and contents left unfinished by a terminal response are marked `incomplete`.
#[derive(Debug, Clone, Default)]
pub struct Assembler {
    options: AssemblerOptions,
    response: AgentResponse,
    ids: HashMap<String, usize>,
    /// Position of the message the last event touched (most deltas go to the same one).
    last_msg: Option<usize>,
    pending: Vec<Pending>,
    /// Open text runs of this batch: (message, content position, index in `pending`).
    runs: Vec<(usize, usize, usize)>,
    done: bool,
    events: u64,
}

impl Assembler {
    /// An empty assembler.
    pub fn new(options: AssemblerOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    /// The response as assembled so far.
    pub fn response(&self) -> &AgentResponse {
        &self.response
    }

    /// The message with id `id`, as assembled so far.
    pub fn message(&self, id: &str) -> Option<&Message> {
        self.ids.get(id).and_then(|&p| self.response.output.get(p))
    }

    /// Takes the assembled response, leaving an empty one.
    pub fn take_response(&mut self) -> AgentResponse {
        std::mem::take(&mut self.response)
    }

    /// Whether a terminal status (or [`finish`](Self::finish)) ended the response.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Events applied so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Records an update, unless updates are off.
    fn record(&mut self, update: Pending) {
        if self.options.updates {
            self.pending.push(update);
        }
    }

    /// Whether updates are waiting to be drained.
    pub fn has_updates(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Applies one SSE `data` payload. Malformed data becomes an [`StreamUpdate::Issue`].
    pub fn push_data(&mut self, data: &str) {
        if data == "[DONE]" {
            return; // an end-of-stream sentinel some servers add; not an event
        }
        match RawEvent::parse(data) {
            Ok(raw) => self.push_raw(raw),
            Err(e) => self.warn(e),
        }
    }

    /// Applies one parsed event.
    pub fn push_event(&mut self, event: super::AgentEvent) {
        let data = serde_json::to_string(&event).unwrap_or_default();
        self.push_data(&data);
    }

    /// Reports an error of the transport or SSE layer as an issue of this stream.
    pub fn push_issue(&mut self, severity: Severity, error: AgentApiError) {
        self.pending
            .push(owned(StreamUpdate::issue(severity, error)));
    }

    fn warn(&mut self, error: AgentApiError) {
        self.push_issue(Severity::Warning, error);
    }

    fn push_raw(&mut self, raw: RawEvent<'_>) {
        self.events += 1;
        match raw.object() {
            "content" => self.apply_content(raw),
            "message" => {
                let message = raw.into_message();
                self.apply_message(message, false);
            }
            "response" => self.apply_response(raw.into_response()),
            "" if raw.error.is_some() => {
                let info = raw.error.as_ref().map(error_info).unwrap_or_default();
                self.response.status = RunStatus::Failed;
                self.response.error = Some(info.clone());
                self.push_issue(Severity::Error, AgentApiError::Server { error: info });
                self.end();
            }
            object => {
                let object = object.to_owned();
                if let super::AgentEvent::Unknown(event) = raw.into_event() {
                    self.warn(AgentApiError::UnknownEvent { object, event });
                }
            }
        }
    }

    /// Position of message `id`, creating it (type `message`, status `in_progress`) if unknown; a
    /// message created for a content event (`announce`) gets its own update.
    fn message_pos(&mut self, id: &str, announce: bool) -> usize {
        if let Some(p) = self.last_msg {
            if self.response.output.get(p).and_then(|m| m.id.as_deref()) == Some(id) {
                return p;
            }
        }
        let p = match self.ids.get(id) {
            Some(&p) => p,
            None => {
                let p = self.response.output.len();
                self.response.output.push(Message {
                    id: Some(id.to_owned()),
                    status: Some(RunStatus::InProgress),
                    ..Message::default()
                });
                self.ids.insert(id.to_owned(), p);
                if announce {
                    self.record(owned(StreamUpdate::Message {
                        message: self.response.output[p].clone(),
                    }));
                }
                p
            }
        };
        self.last_msg = Some(p);
        p
    }

    fn apply_content(&mut self, mut raw: RawEvent<'_>) {
        let Some(msg_id) = raw.msg_id.take() else {
            let content = raw.into_content();
            self.warn(AgentApiError::ContentWithoutMessage {
                content: Box::new(content),
            });
            return;
        };
        let m = self.message_pos(&msg_id.0, true);
        let is_delta = raw.delta == Some(true);
        let kind: ContentKind = raw
            .kind
            .as_ref()
            .map_or(ContentKind::Text, |k| (&*k.0).into());
        let contents = &self.response.output[m].content;
        let index = match raw.index {
            Some(i) => i,
            None if is_delta && !contents.is_empty() => {
                contents.last().and_then(|c| c.index).unwrap_or(0)
            }
            None => next_index(contents),
        };
        let found = find_content(&self.response.output[m].content, index);
        match found {
            Ok(pos) if is_delta => {
                let existing = &self.response.output[m].content[pos];
                if existing.kind != kind {
                    let error = AgentApiError::DeltaKindMismatch {
                        msg_id: msg_id.0.clone().into_owned(),
                        index,
                        kind: existing.kind.clone(),
                        got: kind,
                    };
                    self.warn(error);
                    self.replace_content(m, pos, index, raw);
                } else {
                    self.append_delta(m, pos, index, raw);
                }
            }
            Ok(pos) => self.replace_content(m, pos, index, raw),
            Err(pos) if is_delta && matches!(kind, ContentKind::Text | ContentKind::Data) => {
                // A content started by its first delta: announce it empty, then apply the delta
                // as a delta, so that a UI appending deltas sees every piece exactly once.
                let empty = Content {
                    kind,
                    index: Some(index),
                    msg_id: Some(msg_id.0.clone().into_owned()),
                    status: Some(RunStatus::InProgress),
                    ..Content::default()
                };
                self.response.output[m].content.insert(pos, empty);
                self.push_content_update(m, pos);
                self.append_delta(m, pos, index, raw);
            }
            Err(pos) => {
                raw.msg_id = Some(msg_id);
                let mut content = raw.into_content();
                content.index = Some(index);
                if content.status.is_none() {
                    content.status = Some(RunStatus::InProgress);
                }
                self.response.output[m].content.insert(pos, content);
                self.push_content_update(m, pos);
            }
        }
    }

    fn append_delta(&mut self, m: usize, pos: usize, index: u32, mut raw: RawEvent<'_>) {
        let content = &mut self.response.output[m].content[pos];
        if let Some(status) = raw.status.take() {
            if content.status.as_ref() != Some(&status) {
                content.status = Some(status);
            }
        }
        match content.kind {
            ContentKind::Text => {
                let Some(text) = raw.text.take() else { return };
                if text.0.is_empty() {
                    return;
                }
                let buf = content.text.get_or_insert_with(String::new);
                let start = buf.len();
                buf.push_str(&text.0);
                let end = buf.len();
                self.push_text(m, pos, start, end);
            }
            ContentKind::Data => {
                let Some(delta) = raw.data.take() else { return };
                match &mut content.data {
                    Some(existing) => merge_data(existing, &delta),
                    None => content.data = Some(delta.clone()),
                }
                let msg_id = content.msg_id.clone().unwrap_or_default();
                self.close_run(m, pos);
                self.record(owned(StreamUpdate::DataDelta {
                    msg_id,
                    index,
                    delta,
                }));
            }
            _ => {
                // Other kinds: string payload fields concatenate, others replace.
                append_opt(&mut content.image_url, raw.image_url.take());
                append_opt(&mut content.file_data, raw.file_data.take());
                append_opt(&mut content.refusal, raw.refusal.take());
                append_opt(&mut content.video_url, raw.video_url.take());
                append_opt(&mut content.file_url, raw.file_url.take());
                if let Some(serde_json::Value::String(more)) = raw.data.take() {
                    match &mut content.data {
                        Some(serde_json::Value::String(s)) => s.push_str(&more),
                        other => *other = Some(serde_json::Value::String(more)),
                    }
                }
                replace_opt(&mut content.format, raw.format.take());
                replace_opt(&mut content.file_id, raw.file_id.take());
                replace_opt(&mut content.filename, raw.filename.take());
                self.push_content_update(m, pos);
            }
        }
    }

    fn replace_content(&mut self, m: usize, pos: usize, index: u32, mut raw: RawEvent<'_>) {
        self.materialize_runs(m, pos);
        let msg_id = self.response.output[m].id.clone();
        raw.msg_id = None;
        let mut content = raw.into_content();
        content.index = Some(index);
        content.msg_id = msg_id;
        let old = &mut self.response.output[m].content[pos];
        if content.status.is_none() {
            content.status = old.status.take();
        }
        *old = content;
        self.push_content_update(m, pos);
    }

    fn push_content_update(&mut self, m: usize, pos: usize) {
        self.close_run(m, pos);
        let message = &self.response.output[m];
        let content = &message.content[pos];
        self.record(owned(StreamUpdate::Content {
            msg_id: message.id.clone().unwrap_or_default(),
            index: content.index.unwrap_or(pos as u32),
            content: content.clone(),
        }));
    }

    fn push_text(&mut self, msg: usize, pos: usize, start: usize, end: usize) {
        if self.options.coalesce {
            if let Some(&(_, _, at)) = self.runs.iter().find(|r| r.0 == msg && r.1 == pos) {
                if let Some(Pending::Text { end: e, .. }) = self.pending.get_mut(at) {
                    if *e == start {
                        *e = end;
                        return;
                    }
                }
            }
            self.close_run(msg, pos);
            self.runs.push((msg, pos, self.pending.len()));
        }
        self.record(Pending::Text {
            msg,
            pos,
            start,
            end,
        });
    }

    /// Ends the open text run of a content: later deltas start a new update after whatever update
    /// is pushed now.
    fn close_run(&mut self, msg: usize, pos: usize) {
        self.runs.retain(|r| !(r.0 == msg && r.1 == pos));
    }

    fn close_runs_of_message(&mut self, msg: usize) {
        self.runs.retain(|r| r.0 != msg);
    }

    /// Copies out pending text ranges of a content that is about to be replaced.
    fn materialize_runs(&mut self, msg: usize, pos: usize) {
        for i in 0..self.pending.len() {
            if let Pending::Text {
                msg: pm,
                pos: pp,
                start,
                end,
            } = self.pending[i]
            {
                if pm == msg && pp == pos {
                    let update = self.text_update(pm, pp, start, end);
                    self.pending[i] = owned(update);
                }
            }
        }
        self.close_run(msg, pos);
    }

    /// Copies out every pending text range of a message whose contents are about to be reordered.
    fn materialize_message(&mut self, msg: usize) {
        let n = self.response.output.get(msg).map_or(0, |m| m.content.len());
        for pos in 0..n {
            self.materialize_runs(msg, pos);
        }
        self.close_runs_of_message(msg);
    }

    fn text_update(&self, msg: usize, pos: usize, start: usize, end: usize) -> StreamUpdate {
        let message = &self.response.output[msg];
        let content = &message.content[pos];
        let text = content.text.as_deref().unwrap_or("");
        StreamUpdate::TextDelta {
            msg_id: message.id.clone().unwrap_or_default(),
            index: content.index.unwrap_or(pos as u32),
            delta: text.get(start..end).unwrap_or("").to_owned(),
        }
    }

    /// Applies a message event (or a message of a final `output`, `from_output`).
    fn apply_message(&mut self, incoming: Message, from_output: bool) {
        let m = match incoming.id.as_deref() {
            Some(id) => self.message_pos(id, false),
            None => {
                self.response.output.push(Message::default());
                self.response.output.len() - 1
            }
        };
        self.materialize_message(m);
        let Message {
            id,
            kind,
            status,
            role,
            content,
            code,
            message,
            usage,
            metadata,
            sequence_number,
            error,
            extra,
            object: _,
        } = incoming;
        let target = &mut self.response.output[m];
        if target.id.is_none() {
            target.id = id;
        }
        if kind != MessageType::Message || target.kind == MessageType::Message {
            target.kind = kind;
        }
        replace_opt(&mut target.status, status);
        replace_opt(&mut target.role, role);
        replace_opt(&mut target.code, code);
        replace_opt(&mut target.message, message);
        replace_opt(&mut target.usage, usage);
        replace_opt(&mut target.metadata, metadata);
        if !from_output {
            replace_opt(&mut target.sequence_number, sequence_number);
        }
        replace_opt(&mut target.error, error);
        target.extra.extend(extra);
        let failed = (target.status == Some(RunStatus::Failed)).then(|| target.error.clone());
        if !content.is_empty() {
            self.reconcile_contents(m, content);
        }
        if let Some(error) = failed {
            let error = error.unwrap_or_else(|| ErrorInfo {
                code: "failed".into(),
                message: "the message failed".into(),
                extra: JsonMap::new(),
            });
            self.warn(AgentApiError::Server { error });
        }
        if !from_output {
            self.close_runs_of_message(m);
            self.record(owned(StreamUpdate::Message {
                message: self.response.output[m].clone(),
            }));
        }
    }

    /// Takes the server's version of a message's contents, warning where it differs from the deltas.
    fn reconcile_contents(&mut self, m: usize, theirs: Vec<Content>) {
        let msg_id = self.response.output[m].id.clone();
        let message_status = self.response.output[m].status.clone();
        for (i, mut c) in theirs.into_iter().enumerate() {
            let index = c.index.unwrap_or(i as u32);
            c.index = Some(index);
            if c.msg_id.is_none() {
                c.msg_id.clone_from(&msg_id);
            }
            let contents = &mut self.response.output[m].content;
            match find_content(contents, index) {
                Ok(pos) => {
                    let ours = &mut contents[pos];
                    if c.status.is_none() {
                        c.status = ours.status.clone().or_else(|| message_status.clone());
                    }
                    if !same_payload(ours, &c) {
                        let assembled = Box::new(std::mem::replace(ours, c));
                        self.warn(AgentApiError::ContentMismatch {
                            msg_id: msg_id.clone().unwrap_or_default(),
                            index,
                            assembled,
                        });
                    } else {
                        ours.status = c.status;
                    }
                }
                Err(pos) => {
                    if c.status.is_none() {
                        c.status.clone_from(&message_status);
                    }
                    contents.insert(pos, c);
                }
            }
        }
    }

    fn apply_response(&mut self, incoming: AgentResponse) {
        let AgentResponse {
            id,
            status,
            created_at,
            completed_at,
            error,
            output,
            usage,
            session_id,
            sequence_number,
            extra,
            object: _,
        } = incoming;
        let r = &mut self.response;
        replace_opt(&mut r.id, id);
        r.status = status;
        replace_opt(&mut r.created_at, created_at);
        replace_opt(&mut r.completed_at, completed_at);
        replace_opt(&mut r.error, error);
        replace_opt(&mut r.usage, usage);
        replace_opt(&mut r.session_id, session_id);
        replace_opt(&mut r.sequence_number, sequence_number);
        r.extra.extend(extra);
        if !output.is_empty() {
            let listed: std::collections::HashSet<String> =
                output.iter().filter_map(|m| m.id.clone()).collect();
            for message in output {
                self.apply_message(message, true);
            }
            let missing: Vec<String> = self
                .response
                .output
                .iter()
                .filter_map(|m| m.id.clone())
                .filter(|id| !listed.contains(id))
                .collect();
            for msg_id in missing {
                self.warn(AgentApiError::MessageMissingFromOutput { msg_id });
            }
        }
        self.record(owned(StreamUpdate::Response {
            response: self.envelope(),
        }));
        let status = self.response.status.clone();
        if status.is_terminal() {
            if status == RunStatus::Failed {
                let error = self.response.error.clone().unwrap_or_else(|| ErrorInfo {
                    code: "failed".into(),
                    message: "the response failed".into(),
                    extra: JsonMap::new(),
                });
                self.push_issue(Severity::Error, AgentApiError::Server { error });
            }
            self.end();
        }
    }

    /// The response without its output.
    fn envelope(&self) -> AgentResponse {
        let r = &self.response;
        AgentResponse {
            object: r.object.clone(),
            id: r.id.clone(),
            status: r.status.clone(),
            created_at: r.created_at,
            completed_at: r.completed_at,
            error: r.error.clone(),
            output: Vec::new(),
            usage: r.usage.clone(),
            session_id: r.session_id.clone(),
            sequence_number: r.sequence_number,
            extra: r.extra.clone(),
        }
    }

    /// Marks what is unfinished `incomplete` and records [`StreamUpdate::Done`] (once).
    fn end(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        for message in &mut self.response.output {
            let finished = message.status.as_ref().is_some_and(RunStatus::is_terminal);
            if !finished {
                message.status = Some(RunStatus::Incomplete);
            }
            for content in &mut message.content {
                let finished = content.status.as_ref().is_some_and(RunStatus::is_terminal);
                if !finished {
                    content.status = Some(RunStatus::Incomplete);
                }
            }
        }
        self.runs.clear();
        self.record(owned(StreamUpdate::Done {
            response: self.response.clone(),
        }));
    }

    /// Ends the stream: a response that never reached a terminal status is marked `incomplete` (with
    /// a [`AgentApiError::StreamIncomplete`] error) and everything received is kept.
    pub fn finish(&mut self) {
        if self.done {
            return;
        }
        let last_status = std::mem::replace(&mut self.response.status, RunStatus::Incomplete);
        self.push_issue(
            Severity::Error,
            AgentApiError::StreamIncomplete { last_status },
        );
        self.end();
    }

    /// The user stopped the stream: the response is marked `canceled` (unless it had already ended)
    /// and unfinished parts `incomplete`; the pending updates are dropped (no callback should run
    /// after an abort), everything received stays in the response.
    pub fn abort(&mut self) {
        if !self.done {
            self.response.status = RunStatus::Canceled;
            self.end();
        }
        self.pending.clear();
        self.runs.clear();
    }

    /// Takes the updates recorded since the last drain, in order.
    pub fn drain_updates(&mut self) -> Vec<StreamUpdate> {
        let pending = std::mem::take(&mut self.pending);
        self.runs.clear();
        pending
            .into_iter()
            .map(|p| match p {
                Pending::Owned(u) => *u,
                Pending::Text {
                    msg,
                    pos,
                    start,
                    end,
                } => self.text_update(msg, pos, start, end),
            })
            .collect()
    }

    /// Appends the updates recorded since the last drain to `out` as a JSON array (the shape of
    /// `StreamUpdate[]`), without materializing them, and clears them.
    pub fn drain_updates_json(&mut self, out: &mut String) {
        out.push('[');
        for (i, p) in self.pending.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let written = match p {
                Pending::Owned(u) => serde_json::to_string(u),
                Pending::Text {
                    msg,
                    pos,
                    start,
                    end,
                } => {
                    let message = &self.response.output[*msg];
                    let content = &message.content[*pos];
                    let text = content.text.as_deref().unwrap_or("");
                    serde_json::to_string(&TextDeltaRef {
                        kind: "textDelta",
                        msg_id: message.id.as_deref().unwrap_or(""),
                        index: content.index.unwrap_or(*pos as u32),
                        delta: text.get(*start..*end).unwrap_or(""),
                    })
                }
            };
            out.push_str(&written.unwrap_or_else(|_| "null".to_owned()));
        }
        out.push(']');
        self.pending.clear();
        self.runs.clear();
    }
}

fn owned(update: StreamUpdate) -> Pending {
    Pending::Owned(Box::new(update))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TextDeltaRef<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    msg_id: &'a str,
    index: u32,
    delta: &'a str,
}

/// Position of the content with `index` (contents are kept sorted by index), or where to insert it.
fn find_content(contents: &[Content], index: u32) -> Result<usize, usize> {
    if let Some(c) = contents.get(index as usize) {
        if c.index == Some(index) {
            return Ok(index as usize);
        }
    }
    contents.binary_search_by_key(&index, |c| c.index.unwrap_or(0))
}

fn next_index(contents: &[Content]) -> u32 {
    contents
        .iter()
        .filter_map(|c| c.index)
        .max()
        .map_or(0, |i| i.saturating_add(1))
}

fn replace_opt<T>(slot: &mut Option<T>, v: Option<T>) {
    if v.is_some() {
        *slot = v;
    }
}

fn append_opt(slot: &mut Option<String>, v: Option<String>) {
    if let Some(v) = v {
        match slot {
            Some(s) => s.push_str(&v),
            None => *slot = Some(v),
        }
    }
}

fn same_payload(a: &Content, b: &Content) -> bool {
    a.kind == b.kind
        && a.text == b.text
        && a.image_url == b.image_url
        && a.data == b.data
        && a.format == b.format
        && a.file_url == b.file_url
        && a.file_id == b.file_id
        && a.filename == b.filename
        && a.file_data == b.file_data
        && a.refusal == b.refusal
        && a.video_url == b.video_url
}

/// The protocol's data delta merge (agentscope-runtime `ContentBuilder._merge_data_incrementally`):
/// for each key of the delta, a missing key is added; strings, lists concatenate; numbers (not
/// booleans) add; objects merge recursively; anything else is replaced. A non-object delta or base is
/// replaced whole.
pub(crate) fn merge_data(base: &mut serde_json::Value, delta: &serde_json::Value) {
    use serde_json::Value;
    let (Value::Object(base_map), Value::Object(delta_map)) = (&mut *base, delta) else {
        *base = delta.clone();
        return;
    };
    for (key, d) in delta_map {
        match (base_map.get_mut(key), d) {
            (None, d) => {
                base_map.insert(key.clone(), d.clone());
            }
            (Some(Value::String(b)), Value::String(d)) => b.push_str(d),
            (Some(Value::Array(b)), Value::Array(d)) => b.extend(d.iter().cloned()),
            (Some(b @ Value::Object(_)), d @ Value::Object(_)) => merge_data(b, d),
            (Some(Value::Number(b)), Value::Number(d)) => {
                let sum = match (b.as_i64(), d.as_i64()) {
                    (Some(x), Some(y)) => x.checked_add(y).map(serde_json::Number::from),
                    _ => None,
                }
                .or_else(|| {
                    serde_json::Number::from_f64(
                        b.as_f64().unwrap_or(0.0) + d.as_f64().unwrap_or(0.0),
                    )
                });
                if let Some(sum) = sum {
                    *b = sum;
                }
            }
            (Some(b), d) => *b = d.clone(),
        }
    }
}

/// SSE decoding and assembly in one: bytes of an Agent API `text/event-stream` in, updates and the
/// assembled response out. This is what the JavaScript client runs on every network chunk.
#[derive(Debug, Clone, Default)]
pub struct AgentStream {
    sse: SseDecoder,
    assembler: Assembler,
}

impl AgentStream {
    /// A new stream.
    pub fn new(options: AssemblerOptions) -> Self {
        Self {
            sse: SseDecoder::with_options(options.sse),
            assembler: Assembler::new(options),
        }
    }

    /// Decodes and applies the next chunk of bytes.
    pub fn feed(&mut self, bytes: &[u8]) {
        let assembler = &mut self.assembler;
        self.sse
            .feed(bytes, &mut |item| Self::on_item(assembler, item));
    }

    fn on_item(assembler: &mut Assembler, item: SseItem<'_>) {
        match item {
            SseItem::Event(e) => assembler.push_data(e.data),
            SseItem::Retry(_) => {}
            SseItem::Error(e) => assembler.push_issue(Severity::Warning, e.into()),
        }
    }

    /// Ends the stream (see [`Assembler::finish`]).
    pub fn finish(&mut self) {
        let assembler = &mut self.assembler;
        self.sse.finish(&mut |item| Self::on_item(assembler, item));
        self.assembler.finish();
    }

    /// Continues on a new connection after the previous one broke (resuming with the
    /// `Last-Event-ID` of [`sse`](Self::sse)): the SSE decoder starts a new stream, keeping the last
    /// event id; the assembler keeps everything received.
    pub fn reconnect(&mut self) {
        self.sse.reset();
    }

    /// The user stopped the stream (see [`Assembler::abort`]).
    pub fn abort(&mut self) {
        self.sse.reset();
        self.assembler.abort();
    }

    /// The SSE decoder (last event id, retry).
    pub fn sse(&self) -> &SseDecoder {
        &self.sse
    }

    /// The assembler.
    pub fn assembler(&self) -> &Assembler {
        &self.assembler
    }

    /// The assembler, mutably (to drain updates).
    pub fn assembler_mut(&mut self) -> &mut Assembler {
        &mut self.assembler
    }

    /// The response as assembled so far.
    pub fn response(&self) -> &AgentResponse {
        self.assembler.response()
    }

    /// Takes the updates recorded since the last drain.
    pub fn drain_updates(&mut self) -> Vec<StreamUpdate> {
        self.assembler.drain_updates()
    }
}
