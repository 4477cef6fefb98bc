-- A login id has one canonical form (formapi.loginID: trimmed, lowercase),
-- stored and looked up exactly. The nocase collation compared e-mails
-- with ICU, which ignores soft hyphens, zero-width spaces and joiners and
-- word joiners, so "dup7<U+00AD>@x.in" found dup7@x.in while the sign-in
-- throttle counted it as another id. The column now compares bytes ("C"),
-- as SQLite's NOCASE does between lowercase ids, and uniqueness is on the
-- canonical form (ids unique under nocase are unique lowercased too).
ALTER TABLE users ALTER COLUMN email TYPE TEXT COLLATE "C";
UPDATE users SET email = lower(trim(email)) WHERE email <> lower(trim(email));
