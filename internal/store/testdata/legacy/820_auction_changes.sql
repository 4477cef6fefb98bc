-- A post for a registered MC number changes nothing at once: the change
-- waits here, and a single-use link mailed to the address on file (in the
-- carrier's language) applies it within 24 hours. Only the SHA-256 of the
-- link's token is kept. fields is the JSON of the proposed registration.
ALTER TABLE auction_registrations ADD COLUMN language TEXT NOT NULL DEFAULT 'en';

CREATE TABLE auction_changes (
    token_hash TEXT PRIMARY KEY,
    mc_number  TEXT NOT NULL REFERENCES auction_registrations (mc_number) ON DELETE CASCADE,
    fields     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
);
CREATE INDEX auction_changes_mc ON auction_changes (mc_number, created_at);
CREATE INDEX auction_changes_expiry ON auction_changes (expires_at);
