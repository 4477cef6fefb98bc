-- idempotency_keys holds the Idempotency-Key of each contact message and
-- feedback a client sent with one (formapi/idempotency.go): the site's
-- offline outbox may send a kept submission twice (the page and its
-- service worker at once, or again after an answer that was lost), and
-- the second finds its key here and stores nothing. Keys are forgotten
-- after 30 days.
CREATE TABLE idempotency_keys (
    key        TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
