-- Credential caches (decision 0065): every process forgets what it cached from a credential table when a
-- transaction that changed the table commits. Statement triggers: one notification per statement, and
-- PostgreSQL folds identical notifications of one transaction into one.
CREATE OR REPLACE FUNCTION "platform_credentials_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('platform_credentials_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "messaging_access_tokens_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "messaging_access_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "messaging_accounts_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "messaging_accounts" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "lending_api_keys_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "lending_api_keys" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "lending_tenants_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "lending_tenants" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "lending_users_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "lending_users" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "lending_user_tokens_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "lending_user_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "lending_site_domains_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "lending_site_domains" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "ob_credentials_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "ob_credentials" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "ob_users_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "ob_users" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
--> statement-breakpoint
CREATE TRIGGER "collect_merchants_changed" AFTER UPDATE OR DELETE OR TRUNCATE ON "collect_merchants" FOR EACH STATEMENT EXECUTE FUNCTION "platform_credentials_changed"();
