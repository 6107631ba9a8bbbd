//! The embedded default: each message written as a file under
//! `<dir>/<tenant>/<time>-<id>.eml` (email, as it would be sent) or `.txt` (SMS).

use kairos_store::{Delivery, DeliveryResult};
use lettre::Message;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct MessageFiles {
    dir: PathBuf,
}

impl MessageFiles {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, d: &Delivery, extension: &str) -> PathBuf {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S");
        self.dir
            .join(d.tenant.as_str())
            .join(format!("{stamp}-{}.{extension}", d.id))
    }

    async fn write(&self, path: PathBuf, bytes: Vec<u8>) -> DeliveryResult {
        let result = async {
            if let Some(parent) = path.parent() {
                tokio::fs::create_dir_all(parent).await?;
            }
            tokio::fs::write(&path, bytes).await
        }
        .await;
        match result {
            Ok(()) => DeliveryResult::Delivered,
            Err(e) => DeliveryResult::Transient {
                error_type: "file_write_failed".into(),
                message: format!("{}: {e}", path.display()),
            },
        }
    }

    pub async fn write_email(&self, d: &Delivery, message: &Message) -> DeliveryResult {
        self.write(self.path(d, "eml"), message.formatted()).await
    }

    pub async fn write_sms(&self, d: &Delivery) -> DeliveryResult {
        let text = format!("To: {}\n\n{}\n", d.recipient, d.body);
        self.write(self.path(d, "txt"), text.into_bytes()).await
    }
}
