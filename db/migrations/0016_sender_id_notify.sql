-- Usable senders cached in each process (decision 0073), forgotten like the credentials of decision 0065:
-- a sender ID or a `from` number that stops being usable (rejected, revoked, deleted) reaches every
-- process when the change commits. Inserts notify nobody: only "usable" answers are cached, and a new
-- row cannot make one wrong.
CREATE TRIGGER "messaging_sender_ids_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "messaging_sender_ids" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "messaging_sender_numbers_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "messaging_sender_numbers" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
