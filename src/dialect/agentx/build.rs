//! Building a streamed message: packets out, the logical message kept.

use super::model::{new_message_id, Message, Part, Role, ToolCallPart, ToolErrorType};
use crate::wire::JsonMap;

/// Builds one logical message as a server streams it: each method returns the packet to send (a
/// [`Message`] with this message's `id` and `role`; [`Message::to_sse`] encodes it) and appends it to
/// the logical message by the stream's rule ([`Message::append_packet`]), so
/// [`message`](Self::message) is always what a client's assembler rebuilds from the packets.
///
/// ```
/// use agentwire::dialect::agentx::{MessageBuilder, Role};
/// let mut b = MessageBuilder::new(Role::Assistant);
/// let p1 = b.text("Hello");
/// let p2 = b.text(" there!");
/// assert_eq!(p1.id, p2.id);
/// assert_eq!(p2.parts.len(), 1); // a packet carries only what is new…
/// assert_eq!(b.message().text(), "Hello there!"); // …the message has it all, in one part
/// assert_eq!(b.message().parts.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MessageBuilder {
    message: Message,
}

impl MessageBuilder {
    /// A message of `role` with a new id ([`new_message_id`](super::new_message_id): `msg_` and 32
    /// random hex digits).
    pub fn new(role: Role) -> Self {
        Self::with_id(new_message_id(), role)
    }

    /// A message of `role` with the given id (used as is; the document's shape is `msg_` and 32
    /// lowercase hex digits).
    pub fn with_id(id: impl Into<String>, role: Role) -> Self {
        Self {
            message: Message {
                id: Some(id.into()),
                role,
                parts: Vec::new(),
                extra: JsonMap::new(),
            },
        }
    }

    /// The message's id.
    pub fn id(&self) -> &str {
        self.message.id.as_deref().unwrap_or("")
    }

    /// The logical message built so far.
    pub fn message(&self) -> &Message {
        &self.message
    }

    /// The logical message.
    pub fn into_message(self) -> Message {
        self.message
    }

    /// A packet carrying `parts`, in order. A text part first in the packet concatenates onto the
    /// message's last part when that is text.
    pub fn packet(&mut self, parts: Vec<Part>) -> Message {
        let packet = Message {
            id: self.message.id.clone(),
            role: self.message.role.clone(),
            parts,
            extra: JsonMap::new(),
        };
        self.message.append_packet(packet.clone());
        packet
    }

    /// A packet of text: a delta when the message's last part is text, else a new text part.
    pub fn text(&mut self, text: &str) -> Message {
        self.packet(vec![Part::text(text)])
    }

    /// A packet with a tool call (keep `call.tool_call_id` to match the result; [`ToolCallPart::new`]
    /// makes a new one).
    pub fn tool_call(&mut self, call: ToolCallPart) -> Message {
        self.packet(vec![Part::ToolCall(call)])
    }

    /// A packet with the result of call `tool_call_id`.
    pub fn tool_result(&mut self, tool_call_id: &str, result: serde_json::Value) -> Message {
        self.packet(vec![Part::tool_result(tool_call_id, result)])
    }

    /// A packet with the failure of call `tool_call_id`.
    pub fn tool_error(
        &mut self,
        tool_call_id: &str,
        error_type: ToolErrorType,
        message: &str,
    ) -> Message {
        self.packet(vec![Part::tool_error(tool_call_id, error_type, message)])
    }
}
