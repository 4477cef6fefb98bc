-- The first schema of the form API. Every table the public forms write,
-- the mail outbox and the reference data managed from the command line.

-- settings holds values the server keeps between starts (the XSRF secret).
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- attachments are files sent with feedback; outbox messages point at them
-- instead of copying them.
CREATE TABLE attachments (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    media_type TEXT NOT NULL,
    data       BLOB NOT NULL
);

CREATE TABLE contact_messages (
    id         INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    name       TEXT NOT NULL,
    email      TEXT NOT NULL,
    phone      TEXT NOT NULL,
    subject    TEXT NOT NULL,
    message    TEXT NOT NULL
);

CREATE TABLE feedback (
    id            INTEGER PRIMARY KEY,
    created_at    TEXT NOT NULL,
    name          TEXT NOT NULL,
    email         TEXT NOT NULL,
    phone         TEXT NOT NULL,
    feedback      TEXT NOT NULL,
    error_type    TEXT NOT NULL,
    attachment_id INTEGER REFERENCES attachments (id)
);

-- mail_opt_outs are addresses that unsubscribed: the outbox never mails them.
CREATE TABLE mail_opt_outs (
    email      TEXT PRIMARY KEY COLLATE NOCASE,
    created_at TEXT NOT NULL
);

-- outbox is the durable mail queue: a row is written in the transaction of
-- the thing it reports, and the sender moves it from pending to sent,
-- logged (no SMTP configured), suppressed (opted out) or failed.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    created_at      TEXT NOT NULL,
    recipient       TEXT NOT NULL,
    reply_to        TEXT NOT NULL DEFAULT '',
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    attachment_id   INTEGER REFERENCES attachments (id),
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'logged', 'suppressed', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error      TEXT NOT NULL DEFAULT '',
    done_at         TEXT
);
CREATE INDEX outbox_due ON outbox (state, next_attempt_at);

CREATE TABLE news (
    id                 INTEGER PRIMARY KEY,
    title              TEXT NOT NULL,
    content            TEXT NOT NULL,
    news_url           TEXT NOT NULL DEFAULT '',
    redirect_to_source INTEGER NOT NULL DEFAULT 0 CHECK (redirect_to_source IN (0, 1)),
    posted_at          TEXT NOT NULL
);
CREATE INDEX news_posted ON news (posted_at);

-- tenants brand the site per host label (SPEC §1).
CREATE TABLE tenants (
    label      TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    logo_type  TEXT NOT NULL,
    logo       BLOB NOT NULL,
    theme      TEXT NOT NULL DEFAULT '',
    is_default TEXT NOT NULL DEFAULT 'N' CHECK (is_default IN ('Y', 'N'))
);

-- users holds registered accounts; the accounts work adds its columns.
-- The e-mail uniqueness check reads it.
CREATE TABLE users (
    id         INTEGER PRIMARY KEY,
    email      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    created_at TEXT NOT NULL
);

CREATE TABLE auction_registrations (
    mc_number      TEXT PRIMARY KEY,
    company_name   TEXT NOT NULL,
    contact_name   TEXT NOT NULL,
    email          TEXT NOT NULL,
    phone          TEXT NOT NULL,
    city           TEXT NOT NULL,
    state          TEXT NOT NULL,
    truck_count    INTEGER NOT NULL,
    equipment_type TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);
