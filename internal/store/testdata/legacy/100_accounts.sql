-- Accounts: companies and their members, sign-in credentials, password
-- resets and spent captcha solutions. Numbered from 100 so it never
-- collides with the form migrations; 001 created users(id, email,
-- created_at), which this extends.

CREATE TABLE companies (
    id            INTEGER PRIMARY KEY,
    created_at    TEXT NOT NULL,
    name          TEXT NOT NULL,
    contact_name  TEXT NOT NULL,
    contact_email TEXT NOT NULL,
    address1      TEXT NOT NULL,
    address2      TEXT NOT NULL DEFAULT '',
    city          TEXT NOT NULL,
    state         TEXT NOT NULL,
    postal_code   TEXT NOT NULL DEFAULT '',
    country       TEXT NOT NULL,
    contact_phone TEXT NOT NULL DEFAULT '',
    contact_fax   TEXT NOT NULL DEFAULT ''
);

-- A user signs in with their e-mail (stored lowercase). password_hash is
-- an argon2id PHC string; '' means the account cannot sign in.
ALTER TABLE users ADD COLUMN company_id INTEGER REFERENCES companies (id);
ALTER TABLE users ADD COLUMN first_name TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN last_name TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN password_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN preferred_language TEXT NOT NULL DEFAULT 'en';

-- credentials are the signed-in states: browser sessions (cookie) and
-- bearer tokens (POST /token/generate-token). Only the SHA-256 of the
-- random value is kept, so a copy of the database signs nobody in.
CREATE TABLE credentials (
    token_hash TEXT PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('session', 'bearer')),
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX credentials_user ON credentials (user_id);
CREATE INDEX credentials_expiry ON credentials (expires_at);

-- password_resets are the links of forgot password: hashed, single-use,
-- 30 minutes. A request for an unknown login id stores a row too (with no
-- user), so both answers cost the same.
CREATE TABLE password_resets (
    token_hash TEXT PRIMARY KEY,
    user_id    INTEGER REFERENCES users (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
);
CREATE INDEX password_resets_user ON password_resets (user_id);
CREATE INDEX password_resets_expiry ON password_resets (expires_at);

-- captcha_spent holds every accepted proof-of-work challenge until it
-- expires, so a solution works once, across restarts too.
CREATE TABLE captcha_spent (
    challenge  TEXT PRIMARY KEY,
    expires_at TEXT NOT NULL
);
CREATE INDEX captcha_spent_expiry ON captcha_spent (expires_at);
