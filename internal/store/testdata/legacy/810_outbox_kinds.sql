-- Each outbox message has a kind, and only list mail (sent to many
-- people) honours opt-outs: notifications to the provider and account
-- mail (registration, password reset, confirmations) are always sent.
-- A message kept because no SMTP server is configured is 'held' (its body
-- never goes to the log). SQLite cannot change a CHECK constraint, so the
-- table is rebuilt.
CREATE TABLE outbox_kinds (
    id              INTEGER PRIMARY KEY,
    created_at      TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('list', 'notification', 'account')),
    recipient       TEXT NOT NULL,
    reply_to        TEXT NOT NULL DEFAULT '',
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    attachment_id   INTEGER REFERENCES attachments (id),
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'held', 'suppressed', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error      TEXT NOT NULL DEFAULT '',
    done_at         TEXT
);
-- Until now the site queued two kinds: notifications to the provider
-- (contact and feedback, which carry the visitor's Reply-To) and reset
-- mail to members. A notification that an opt-out suppressed is queued
-- again: the provider never got it. Suppressed reset mail stays as it is
-- (its link has expired; the member can ask again).
INSERT INTO outbox_kinds (id, created_at, kind, recipient, reply_to, subject, body, attachment_id, state, attempts, next_attempt_at, last_error, done_at)
SELECT id, created_at,
       CASE WHEN reply_to != '' THEN 'notification' ELSE 'account' END,
       recipient, reply_to, subject, body, attachment_id,
       CASE WHEN state = 'logged' THEN 'held'
            WHEN state = 'suppressed' AND reply_to != '' THEN 'pending'
            ELSE state END,
       attempts, next_attempt_at, last_error,
       CASE WHEN state = 'suppressed' AND reply_to != '' THEN NULL ELSE done_at END
FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_kinds RENAME TO outbox;
CREATE INDEX outbox_due ON outbox (state, next_attempt_at);
