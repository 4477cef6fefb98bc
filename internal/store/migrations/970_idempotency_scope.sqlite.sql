-- idempotency_keys scopes each Idempotency-Key by its call (method and
-- path) and its client (formapi/idempotency.go), and keeps the answer the
-- first try got, which a retry gets again: a key sent to another call, or
-- by another client with another submission, stores its own. fingerprint
-- is a hash of the submission's fields (never of passwords), so the same
-- submission sent again from another address (a phone that moved from
-- Wi-Fi to its mobile network) is still stored once. status 0 is a claim
-- its transaction has not yet answered; no committed row has it.
-- The keys kept so far, of contact messages and feedback, are carried
-- over for both calls with the success answer they got, for any client.
DROP INDEX idempotency_keys_created;
ALTER TABLE idempotency_keys RENAME TO idempotency_keys_unscoped;
CREATE TABLE idempotency_keys (
    route        TEXT NOT NULL,
    key          TEXT NOT NULL,
    client       TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    status       INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    body         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (route, key, client)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
INSERT INTO idempotency_keys (route, key, client, fingerprint, status, content_type, body, created_at)
    SELECT 'POST /api/contact_us', key, '', '', 200, 'application/json; charset=utf-8', '{"status":"Success","result":"contact.result.sent"}' || char(10), created_at FROM idempotency_keys_unscoped;
INSERT INTO idempotency_keys (route, key, client, fingerprint, status, content_type, body, created_at)
    SELECT 'POST /api/error_feedback', key, '', '', 200, 'application/json; charset=utf-8', '{"status":"success"}' || char(10), created_at FROM idempotency_keys_unscoped;
DROP TABLE idempotency_keys_unscoped;
