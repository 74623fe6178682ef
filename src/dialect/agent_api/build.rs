//! The protocol's three-layer response builder (agentscope-runtime `agent_api_builder.py`):
//! [`ResponseBuilder`] → [`MessageBuilder`] → [`ContentBuilder`]. Each method updates the response
//! being built and returns the event to send; [`AgentEvent::to_sse`] encodes it.

// Every function here is `#[inline]`, so that it is compiled in agentwire at opt-level "z" (cold
// code: see "Cold code in this crate" in src/core.rs).

use std::sync::{Arc, Mutex, MutexGuard};

use super::assemble::merge_data;
use super::event::AgentEvent;
use super::model::{
    AgentResponse, Content, ContentKind, ErrorInfo, Message, MessageType, Role, RunStatus,
};
use super::AgentApiError;
use crate::platform;
use crate::wire::JsonMap;

impl AgentEvent {
    /// The event as one SSE event: `data: <json>` and a blank line.
    #[inline]
    pub fn to_sse(&self) -> String {
        let mut out = String::new();
        self.write_sse(&mut out);
        out
    }

    /// Appends the event to `out` as one SSE event.
    #[inline]
    pub fn write_sse(&self, out: &mut String) {
        let json = serde_json::to_string(self).unwrap_or_else(|_| "null".to_owned());
        // JSON text has no raw line breaks, so one `data:` line carries it.
        out.push_str("data: ");
        out.push_str(&json);
        out.push_str("\n\n");
    }
}

/// Locks the shared builder state (a poisoned lock is still usable: the state is plain data).
#[inline]
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Debug, Default)]
struct State {
    response: AgentResponse,
    next_sequence: u64,
}

impl State {
    #[inline]
    fn seq(&mut self) -> u64 {
        let s = self.next_sequence;
        self.next_sequence += 1;
        s
    }

    #[inline]
    fn message_mut(&mut self, id: &str) -> Option<&mut Message> {
        self.response
            .output
            .iter_mut()
            .find(|m| m.id.as_deref() == Some(id))
    }
}

/// Builds a response and emits its events (`ResponseBuilder` of the protocol's builder helpers).
/// Every event it and its message/content builders emit gets the next `sequence_number`, from 0.
///
/// ```
/// use agentwire::dialect::agent_api::{ContentKind, MessageType, ResponseBuilder, Role};
/// let mut rb = ResponseBuilder::new(None);
/// let mut events = vec![rb.created(), rb.in_progress()];
/// let mut mb = rb.create_message_builder(Role::Assistant, MessageType::Message);
/// events.push(mb.message());
/// let mut cb = mb.create_content_builder(ContentKind::Text);
/// events.push(cb.add_text_delta("Hi").unwrap());
/// events.push(cb.complete());
/// events.push(mb.complete());
/// events.push(rb.completed());
/// assert_eq!(events.len(), 7);
/// ```
#[derive(Debug, Clone)]
pub struct ResponseBuilder {
    state: Arc<Mutex<State>>,
    session_id: Option<String>,
}

impl ResponseBuilder {
    /// A builder for a new response (`response_<uuid>`, `created_at` now) in session `session_id`.
    #[inline]
    pub fn new(session_id: Option<String>) -> Self {
        let b = Self {
            state: Arc::default(),
            session_id,
        };
        b.reset();
        b
    }

    /// A builder for a new response whose id is `response_id` (`None`: `response_<uuid>`), as the
    /// protocol's `ResponseBuilder(session_id, response_id)`; a server gives it the request's `id`
    /// (agentscope-runtime's runner does). [`reset`](Self::reset) makes a new id.
    #[inline]
    pub fn with_id(session_id: Option<String>, response_id: Option<String>) -> Self {
        let b = Self::new(session_id);
        if let Some(id) = response_id {
            lock(&b.state).response.id = Some(id);
        }
        b
    }

    /// Starts over with a new response id and no messages (sequence numbers continue). Message
    /// and content builders of the messages before still emit events, with the next sequence
    /// numbers, for messages no longer in the response (a message builder's events then hold
    /// only the message's id and status).
    #[inline]
    pub fn reset(&self) {
        let mut st = lock(&self.state);
        st.response = AgentResponse {
            id: Some(format!("response_{}", platform::uuid_v4())),
            session_id: self.session_id.clone(),
            created_at: Some(platform::now_unix_seconds() as i64),
            ..AgentResponse::default()
        };
    }

    /// The response as built so far.
    #[inline]
    pub fn response(&self) -> AgentResponse {
        lock(&self.state).response.clone()
    }

    #[inline]
    fn emit(&self, status: RunStatus) -> AgentEvent {
        let mut st = lock(&self.state);
        st.response.status = status;
        let seq = st.seq();
        let mut r = st.response.clone();
        r.sequence_number = Some(seq);
        if !r.status.is_terminal() {
            r.output.clear();
        }
        AgentEvent::Response(r)
    }

    /// Status `created`.
    #[inline]
    pub fn created(&mut self) -> AgentEvent {
        self.emit(RunStatus::Created)
    }

    /// Status `in_progress`.
    #[inline]
    pub fn in_progress(&mut self) -> AgentEvent {
        self.emit(RunStatus::InProgress)
    }

    /// Status `completed`, with `completed_at` now and the whole `output`.
    #[inline]
    pub fn completed(&mut self) -> AgentEvent {
        lock(&self.state).response.completed_at = Some(platform::now_unix_seconds() as i64);
        self.emit(RunStatus::Completed)
    }

    /// Status `failed` with `error`, with the `output` built so far.
    #[inline]
    pub fn failed(&mut self, error: ErrorInfo) -> AgentEvent {
        lock(&self.state).response.error = Some(Box::new(error));
        self.emit(RunStatus::Failed)
    }

    /// Status `canceled`, with the `output` built so far.
    #[inline]
    pub fn canceled(&mut self) -> AgentEvent {
        self.emit(RunStatus::Canceled)
    }

    /// Sets the response's `usage` (token counts as the server reports them, e.g.
    /// `{"input_tokens": 12, "output_tokens": 30}`; the protocol's `AgentResponse.usage`, a
    /// JSON object), carried by every response event emitted after it; emits nothing.
    #[inline]
    pub fn set_usage(&mut self, usage: JsonMap) {
        lock(&self.state).response.usage = Some(Box::new(usage));
    }

    /// Starts a message (`msg_<uuid>`, status `in_progress`, as the protocol's `MessageBuilder`
    /// starts one) of `role` and `message_type`, added to the response's output.
    #[inline]
    pub fn create_message_builder(
        &mut self,
        role: Role,
        message_type: MessageType,
    ) -> MessageBuilder {
        let id = format!("msg_{}", platform::uuid_v4());
        let message = Message {
            id: Some(id.clone()),
            kind: message_type,
            status: Some(RunStatus::InProgress),
            role: Some(role),
            ..Message::default()
        };
        lock(&self.state).response.output.push(message);
        MessageBuilder {
            state: Arc::clone(&self.state),
            id,
            contents: 0,
        }
    }

    /// The protocol's `generate_streaming_response`: exactly response `created` → response
    /// `in_progress` → message `in_progress` → one text delta per token → content `completed` (the whole
    /// text) → message `completed` → response `completed`. Starts a new response (see [`reset`]).
    ///
    /// [`reset`]: Self::reset
    #[inline]
    pub fn generate_streaming_response(
        &mut self,
        text_tokens: &[&str],
        role: Role,
    ) -> Vec<AgentEvent> {
        self.reset();
        let mut events = vec![self.created(), self.in_progress()];
        let mut mb = self.create_message_builder(role, MessageType::Message);
        events.push(mb.message());
        let mut cb = mb.create_content_builder(ContentKind::Text);
        for token in text_tokens {
            if let Ok(e) = cb.add_text_delta(token) {
                events.push(e);
            }
        }
        events.push(cb.complete());
        events.push(mb.complete());
        events.push(self.completed());
        events
    }

    /// [`generate_streaming_response`](Self::generate_streaming_response), SSE-encoded.
    #[inline]
    pub fn streaming_sse(&mut self, text_tokens: &[&str], role: Role) -> String {
        let mut out = String::new();
        for e in self.generate_streaming_response(text_tokens, role) {
            e.write_sse(&mut out);
        }
        out
    }
}

/// Builds one message of a response (`MessageBuilder`).
#[derive(Debug, Clone)]
pub struct MessageBuilder {
    state: Arc<Mutex<State>>,
    id: String,
    contents: u32,
}

impl MessageBuilder {
    /// The message's id.
    #[inline]
    pub fn id(&self) -> &str {
        &self.id
    }

    #[inline]
    fn emit(&self, status: Option<RunStatus>) -> AgentEvent {
        let mut st = lock(&self.state);
        let seq = st.seq();
        let Some(m) = st.message_mut(&self.id) else {
            // The response was reset: the message is not in it any more. The event still names
            // the message and takes its sequence number (no gap in the numbers).
            return AgentEvent::Message(Message {
                id: Some(self.id.clone()),
                status,
                sequence_number: Some(seq),
                ..Message::default()
            });
        };
        if let Some(s) = status {
            m.status = Some(s);
        }
        let mut m = m.clone();
        m.sequence_number = Some(seq);
        AgentEvent::Message(m)
    }

    /// The message's event as it is now (first: status `in_progress`, no contents).
    #[inline]
    pub fn message(&mut self) -> AgentEvent {
        self.emit(None)
    }

    /// Status `in_progress`.
    #[inline]
    pub fn in_progress(&mut self) -> AgentEvent {
        self.emit(Some(RunStatus::InProgress))
    }

    /// Starts a content of `kind` at the next `index` (0, 1, …).
    #[inline]
    pub fn create_content_builder(&mut self, kind: ContentKind) -> ContentBuilder {
        let index = self.contents;
        self.contents += 1;
        ContentBuilder {
            state: Arc::clone(&self.state),
            msg_id: self.id.clone(),
            content: Content {
                kind,
                index: Some(index),
                msg_id: Some(self.id.clone()),
                ..Content::default()
            },
            text_tokens: None,
            data_deltas: Vec::new(),
        }
    }

    /// Puts a content into the message (replacing the one with the same `index`), as
    /// `MessageBuilder.add_content`; emits nothing.
    #[inline]
    pub fn add_content(&mut self, content: Content) {
        add_content(&self.state, &self.id, content);
    }

    /// Status `completed`, with all contents.
    #[inline]
    pub fn complete(&mut self) -> AgentEvent {
        self.emit(Some(RunStatus::Completed))
    }

    /// Sets the message's `usage` (the protocol's `Message.usage`, a JSON object: the tokens
    /// this message took), carried by its events emitted after it (and by the response's
    /// `output`); emits nothing.
    #[inline]
    pub fn set_usage(&mut self, usage: JsonMap) {
        if let Some(m) = lock(&self.state).message_mut(&self.id) {
            m.usage = Some(Box::new(usage));
        }
    }
}

#[inline]
fn add_content(state: &Mutex<State>, msg_id: &str, content: Content) {
    let mut st = lock(state);
    let Some(m) = st.message_mut(msg_id) else {
        return;
    };
    match m.content.iter_mut().find(|c| c.index == content.index) {
        Some(slot) => *slot = content,
        None => m.content.push(content),
    }
}

/// Builds one content of a message (`ContentBuilder`).
#[derive(Debug, Clone)]
pub struct ContentBuilder {
    state: Arc<Mutex<State>>,
    msg_id: String,
    content: Content,
    /// The text deltas so far, joined; `None` before the first (an empty delta still makes the
    /// text `""` on completion, as the protocol's list of tokens does).
    text_tokens: Option<String>,
    data_deltas: Vec<serde_json::Value>,
}

impl ContentBuilder {
    /// The content as built so far.
    #[inline]
    pub fn content(&self) -> &Content {
        &self.content
    }

    #[inline]
    fn need(&self, method: &'static str, expected: ContentKind) -> Result<(), AgentApiError> {
        if self.content.kind == expected {
            Ok(())
        } else {
            Err(AgentApiError::WrongContentKind {
                method,
                expected,
                kind: self.content.kind.clone(),
            })
        }
    }

    #[inline]
    fn event(&self, mut c: Content) -> AgentEvent {
        c.sequence_number = Some(lock(&self.state).seq());
        AgentEvent::Content(c)
    }

    #[inline]
    fn delta_event(&self) -> Content {
        Content {
            kind: self.content.kind.clone(),
            index: self.content.index,
            delta: Some(true),
            msg_id: Some(self.msg_id.clone()),
            status: Some(RunStatus::InProgress),
            ..Content::default()
        }
    }

    /// A text delta (`delta: true`, status `in_progress`).
    ///
    /// # Errors
    /// [`AgentApiError::WrongContentKind`] unless this builds `text`.
    #[inline]
    pub fn add_text_delta(&mut self, text: &str) -> Result<AgentEvent, AgentApiError> {
        self.need("add_text_delta", ContentKind::Text)?;
        self.text_tokens
            .get_or_insert_with(String::new)
            .push_str(text);
        Ok(self.event(Content {
            text: Some(text.to_owned()),
            ..self.delta_event()
        }))
    }

    /// Sets the whole text (status `in_progress`).
    ///
    /// # Errors
    /// [`AgentApiError::WrongContentKind`] unless this builds `text`.
    #[inline]
    pub fn set_text(&mut self, text: &str) -> Result<AgentEvent, AgentApiError> {
        self.need("set_text", ContentKind::Text)?;
        self.content.text = Some(text.to_owned());
        Ok(self.whole(RunStatus::InProgress))
    }

    /// Sets the image URL (status `in_progress`).
    ///
    /// # Errors
    /// [`AgentApiError::WrongContentKind`] unless this builds `image`.
    #[inline]
    pub fn set_image_url(&mut self, image_url: &str) -> Result<AgentEvent, AgentApiError> {
        self.need("set_image_url", ContentKind::Image)?;
        self.content.image_url = Some(image_url.to_owned());
        Ok(self.whole(RunStatus::InProgress))
    }

    /// Sets the refusal text (status `in_progress`).
    ///
    /// # Errors
    /// [`AgentApiError::WrongContentKind`] unless this builds `refusal`.
    #[inline]
    pub fn set_refusal(&mut self, refusal: &str) -> Result<AgentEvent, AgentApiError> {
        self.need("set_refusal", ContentKind::Refusal)?;
        self.content.refusal = Some(refusal.to_owned());
        Ok(self.whole(RunStatus::InProgress))
    }

    /// Sets the whole data object (status `in_progress`).
    ///
    /// # Errors
    /// [`AgentApiError::WrongContentKind`] unless this builds `data`.
    #[inline]
    pub fn set_data(&mut self, data: serde_json::Value) -> Result<AgentEvent, AgentApiError> {
        self.need("set_data", ContentKind::Data)?;
        self.content.data = Some(data);
        Ok(self.whole(RunStatus::InProgress))
    }

    /// A data delta (`delta: true`), merged into the data on [`complete`](Self::complete).
    ///
    /// # Errors
    /// [`AgentApiError::WrongContentKind`] unless this builds `data`.
    #[inline]
    pub fn add_data_delta(
        &mut self,
        delta: serde_json::Value,
    ) -> Result<AgentEvent, AgentApiError> {
        self.need("add_data_delta", ContentKind::Data)?;
        self.data_deltas.push(delta.clone());
        Ok(self.event(Content {
            data: Some(delta),
            ..self.delta_event()
        }))
    }

    /// Sets any payload: for the kinds without a dedicated setter (audio, file, video), or to attach
    /// extension fields. The content's kind, index and message are kept.
    #[inline]
    pub fn set_content(&mut self, content: Content) -> AgentEvent {
        let Content {
            kind,
            index,
            msg_id,
            ..
        } = self.content.clone();
        self.content = Content {
            kind,
            index,
            msg_id,
            ..content
        };
        self.whole(RunStatus::InProgress)
    }

    #[inline]
    fn whole(&mut self, status: RunStatus) -> AgentEvent {
        self.content.status = Some(status);
        self.content.delta = Some(false);
        self.event(self.content.clone())
    }

    /// Completes the content: the text deltas joined (after any `set_text`), the data deltas merged,
    /// `delta: false`, status `completed`; the content is put into its message.
    #[inline]
    pub fn complete(&mut self) -> AgentEvent {
        if let Some(tokens) = self.text_tokens.take() {
            let text = self.content.text.get_or_insert_with(String::new);
            text.push_str(&tokens);
        }
        if !self.data_deltas.is_empty() {
            let mut data = self
                .content
                .data
                .take()
                .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
            for d in std::mem::take(&mut self.data_deltas) {
                merge_data(&mut data, &d);
            }
            self.content.data = Some(data);
        }
        let event = self.whole(RunStatus::Completed);
        let mut stored = self.content.clone();
        stored.sequence_number = None;
        add_content(&self.state, &self.msg_id, stored);
        event
    }
}
