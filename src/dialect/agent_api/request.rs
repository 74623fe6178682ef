//! Building an [`AgentRequest`].

// Every function here is `#[inline]`, so that it is compiled in agentwire at opt-level "z" (cold
// code: see "Cold code in this crate" in src/core.rs).

use super::model::{
    AgentRequest, Content, FunctionCallOutput, Message, MessageType, Role, Stop, Tool,
};
use super::AgentApiError;

/// Builds an [`AgentRequest`], checking generation parameters as they are set.
///
/// Contents added with the same role as the last message (of type `message`) join that message, so
/// `.text(User, "What is this?").image(User, url)` makes one multimodal message.
///
/// ```
/// use agentwire::dialect::agent_api::{RequestBuilder, Role};
/// let request = RequestBuilder::new()
///     .text(Role::User, "What is the capital of France?")
///     .temperature(0.2)?
///     .session_id("sess-1")
///     .build()?;
/// assert_eq!(request.input.len(), 1);
/// assert!(RequestBuilder::new().temperature(3.0).is_err());
/// # Ok::<(), agentwire::dialect::agent_api::AgentApiError>(())
/// ```
#[derive(Debug, Clone)]
pub struct RequestBuilder {
    request: AgentRequest,
}

impl Default for RequestBuilder {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn check(
    name: &'static str,
    value: f64,
    lo: f64,
    hi: f64,
    range: &'static str,
) -> Result<(), AgentApiError> {
    if value >= lo && value <= hi {
        Ok(())
    } else {
        Err(AgentApiError::ParameterOutOfRange { name, value, range })
    }
}

impl AgentRequest {
    /// Checks the generation parameters' ranges: `n` 1 to 5, `temperature` 0 to 2, `top_p` 0 to 1,
    /// `frequency_penalty` and `presence_penalty` -2 to 2, `max_tokens` at least 1.
    ///
    /// # Errors
    /// [`AgentApiError::ParameterOutOfRange`] for the first parameter outside its range.
    #[inline]
    pub fn validate(&self) -> Result<(), AgentApiError> {
        if let Some(n) = self.n {
            check("n", f64::from(n), 1.0, 5.0, "1 to 5")?;
        }
        if let Some(t) = self.temperature {
            check("temperature", t, 0.0, 2.0, "0 to 2")?;
        }
        if let Some(p) = self.top_p {
            check("top_p", p, 0.0, 1.0, "0 to 1")?;
        }
        if let Some(p) = self.frequency_penalty {
            check("frequency_penalty", p, -2.0, 2.0, "-2 to 2")?;
        }
        if let Some(p) = self.presence_penalty {
            check("presence_penalty", p, -2.0, 2.0, "-2 to 2")?;
        }
        if let Some(m) = self.max_tokens {
            check("max_tokens", f64::from(m), 1.0, f64::INFINITY, "1 or more")?;
        }
        Ok(())
    }
}

impl RequestBuilder {
    /// An empty request (`stream: true`).
    #[inline]
    pub fn new() -> Self {
        Self {
            request: AgentRequest {
                input: Vec::new(),
                stream: true,
                model: None,
                top_p: None,
                temperature: None,
                frequency_penalty: None,
                presence_penalty: None,
                max_tokens: None,
                stop: None,
                n: None,
                seed: None,
                tools: None,
                session_id: None,
                user_id: None,
                id: None,
                extra: Default::default(),
            },
        }
    }

    /// Adds a content to the last message if it is a `message` of `role`, else to a new one.
    #[inline]
    pub fn content(mut self, role: Role, content: Content) -> Self {
        match self.request.input.last_mut() {
            Some(m) if m.role.as_ref() == Some(&role) && m.kind == MessageType::Message => {
                m.content.push(content)
            }
            _ => self.request.input.push(Message::new(role, vec![content])),
        }
        self
    }

    /// Adds a `text` content.
    #[inline]
    pub fn text(self, role: Role, text: &str) -> Self {
        self.content(role, Content::text(text))
    }

    /// Adds an `image` content (a URL or `data:` URL).
    #[inline]
    pub fn image(self, role: Role, image_url: &str) -> Self {
        self.content(role, Content::image(image_url))
    }

    /// Adds a `data` content (a JSON object).
    #[inline]
    pub fn data(self, role: Role, data: serde_json::Value) -> Self {
        self.content(role, Content::data(data))
    }

    /// Adds a `file` content referring to a URL.
    #[inline]
    pub fn file(self, role: Role, file_url: &str, filename: Option<&str>) -> Self {
        self.content(role, Content::file(file_url, filename.map(str::to_owned)))
    }

    /// Adds a whole message.
    #[inline]
    pub fn message(mut self, message: Message) -> Self {
        self.request.input.push(message);
        self
    }

    /// Adds a `function_call_output` message (role `tool`) answering call `call_id`.
    #[inline]
    pub fn function_call_output(mut self, output: FunctionCallOutput) -> Self {
        let data = crate::json::to_tree(&output).unwrap_or_default();
        self.request.input.push(Message {
            kind: MessageType::FunctionCallOutput,
            ..Message::new(Role::Tool, vec![Content::data(data)])
        });
        self
    }

    /// Offers a tool.
    #[inline]
    pub fn tool(mut self, tool: Tool) -> Self {
        self.request.tools.get_or_insert_with(Vec::new).push(tool);
        self
    }

    /// Model id.
    #[inline]
    pub fn model(mut self, model: &str) -> Self {
        self.request.model = Some(model.to_owned());
        self
    }

    /// Sampling temperature.
    ///
    /// # Errors
    /// [`AgentApiError::ParameterOutOfRange`] outside 0 to 2.
    #[inline]
    pub fn temperature(mut self, t: f64) -> Result<Self, AgentApiError> {
        check("temperature", t, 0.0, 2.0, "0 to 2")?;
        self.request.temperature = Some(t);
        Ok(self)
    }

    /// Nucleus sampling mass.
    ///
    /// # Errors
    /// [`AgentApiError::ParameterOutOfRange`] outside 0 to 1.
    #[inline]
    pub fn top_p(mut self, p: f64) -> Result<Self, AgentApiError> {
        check("top_p", p, 0.0, 1.0, "0 to 1")?;
        self.request.top_p = Some(p);
        Ok(self)
    }

    /// Frequency penalty.
    ///
    /// # Errors
    /// [`AgentApiError::ParameterOutOfRange`] outside -2 to 2.
    #[inline]
    pub fn frequency_penalty(mut self, p: f64) -> Result<Self, AgentApiError> {
        check("frequency_penalty", p, -2.0, 2.0, "-2 to 2")?;
        self.request.frequency_penalty = Some(p);
        Ok(self)
    }

    /// Presence penalty.
    ///
    /// # Errors
    /// [`AgentApiError::ParameterOutOfRange`] outside -2 to 2.
    #[inline]
    pub fn presence_penalty(mut self, p: f64) -> Result<Self, AgentApiError> {
        check("presence_penalty", p, -2.0, 2.0, "-2 to 2")?;
        self.request.presence_penalty = Some(p);
        Ok(self)
    }

    /// Maximum tokens to generate.
    ///
    /// # Errors
    /// [`AgentApiError::ParameterOutOfRange`] if 0.
    #[inline]
    pub fn max_tokens(mut self, m: u32) -> Result<Self, AgentApiError> {
        check("max_tokens", f64::from(m), 1.0, f64::INFINITY, "1 or more")?;
        self.request.max_tokens = Some(m);
        Ok(self)
    }

    /// Number of choices.
    ///
    /// # Errors
    /// [`AgentApiError::ParameterOutOfRange`] outside 1 to 5.
    #[inline]
    pub fn n(mut self, n: u32) -> Result<Self, AgentApiError> {
        check("n", f64::from(n), 1.0, 5.0, "1 to 5")?;
        self.request.n = Some(n);
        Ok(self)
    }

    /// Sampling seed.
    #[inline]
    pub fn seed(mut self, seed: i64) -> Self {
        self.request.seed = Some(seed);
        self
    }

    /// Stop sequence(s).
    #[inline]
    pub fn stop(mut self, stop: Stop) -> Self {
        self.request.stop = Some(stop);
        self
    }

    /// Session to continue.
    #[inline]
    pub fn session_id(mut self, id: &str) -> Self {
        self.request.session_id = Some(id.to_owned());
        self
    }

    /// The id the response should have: the request's `id` (`BaseRequest.id`, "request unique
    /// id"), which agentscope-runtime's runner gives its response.
    #[inline]
    pub fn response_id(mut self, id: &str) -> Self {
        self.request.id = Some(id.to_owned());
        self
    }

    /// The user the conversation is for (`user_id`).
    #[inline]
    pub fn user_id(mut self, id: &str) -> Self {
        self.request.user_id = Some(id.to_owned());
        self
    }

    /// Ask for a stream (`true`, the default) or a single JSON answer.
    #[inline]
    pub fn stream(mut self, stream: bool) -> Self {
        self.request.stream = stream;
        self
    }

    /// Sets a field the protocol does not define (kept as is on the wire).
    #[inline]
    pub fn extra(mut self, key: &str, value: serde_json::Value) -> Self {
        self.request.extra.insert(key.to_owned(), value);
        self
    }

    /// The request as built so far, not checked ([`Self::build`] checks it).
    #[inline]
    pub fn request(&self) -> &AgentRequest {
        &self.request
    }

    /// The request.
    ///
    /// # Errors
    /// [`AgentApiError::ParameterOutOfRange`] (see [`AgentRequest::validate`]).
    #[inline]
    pub fn build(self) -> Result<AgentRequest, AgentApiError> {
        self.request.validate()?;
        Ok(self.request)
    }
}
