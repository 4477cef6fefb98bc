-- The reason a visitor gave when leaving the e-mail list (the FAQ's
-- message box, sent with the unsubscribe request), shown by
-- `freightsite mail optouts`; '' when none was given.
ALTER TABLE mail_opt_outs ADD COLUMN reason TEXT NOT NULL DEFAULT '';
