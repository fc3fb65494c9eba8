//! The serde model of an observation file (see the [module docs](super) for the format).

use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------------
// The serde model of the document

#[derive(Serialize, Deserialize)]
#[serde(rename = "observationset")]
pub(super) struct SetXml {
    pub(super) matrix: MatrixXml,
    #[serde(rename = "observation", default)]
    pub(super) observations: Vec<ObservationXml>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct MatrixXml {
    #[serde(rename = "op", default)]
    pub(super) ops: Vec<MatrixOpXml>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct MatrixOpXml {
    #[serde(rename = "@id")]
    pub(super) id: String,
    #[serde(rename = "@thread")]
    pub(super) thread: String,
    #[serde(rename = "@name")]
    pub(super) name: String,
    #[serde(rename = "arg", default)]
    pub(super) args: Vec<TextXml>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct ObservationXml {
    #[serde(rename = "thread", default)]
    pub(super) threads: Vec<ThreadXml>,
    #[serde(rename = "op", default)]
    pub(super) ops: Vec<GroupOpXml>,
    #[serde(rename = "history", default)]
    pub(super) histories: Vec<String>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct ThreadXml {
    #[serde(rename = "@id")]
    pub(super) id: String,
    #[serde(rename = "$text", default)]
    pub(super) ops: String,
}

#[derive(Serialize, Deserialize)]
pub(super) struct GroupOpXml {
    #[serde(rename = "@id")]
    pub(super) id: String,
    #[serde(rename = "@name")]
    pub(super) name: String,
    #[serde(rename = "arg", default)]
    pub(super) args: Vec<TextXml>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) result: Option<TextXml>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) panicked: Option<TextXml>,
}

/// A string: as text, or as a `value` attribute when it is non-empty whitespace only (which the
/// deserializer would drop as formatting).
#[derive(Serialize, Deserialize)]
pub(super) struct TextXml {
    #[serde(rename = "@value", default, skip_serializing_if = "Option::is_none")]
    pub(super) value: Option<String>,
    #[serde(rename = "$text", default)]
    pub(super) text: String,
}

pub(super) fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

impl TextXml {
    pub(super) fn of(s: &str) -> Self {
        if !s.is_empty() && s.chars().all(is_xml_space) {
            Self {
                value: Some(s.to_string()),
                text: String::new(),
            }
        } else {
            Self {
                value: None,
                text: s.to_string(),
            }
        }
    }

    pub(super) fn get(&self) -> String {
        self.value.clone().unwrap_or_else(|| self.text.clone())
    }
}
