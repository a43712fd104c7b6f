DROP INDEX "collect_notifications_change_idx";--> statement-breakpoint
ALTER TABLE "collect_notifications" ADD COLUMN "round" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "collect_statement_credits" ADD COLUMN "reverses_credit_id" bigint;--> statement-breakpoint
CREATE UNIQUE INDEX "collect_notifications_change_round_idx" ON "collect_notifications" USING btree ("merchant_min","invoice","status","round");--> statement-breakpoint
-- Hooks and signup webhook URLs registered before decision 0064 keep the bare compact JWS body (jose);
-- rows added from now on default to the JSON envelope.
ALTER TABLE "ob_hooks" ADD COLUMN "body_format" text DEFAULT 'jose' NOT NULL;--> statement-breakpoint
ALTER TABLE "ob_hooks" ALTER COLUMN "body_format" SET DEFAULT 'envelope';--> statement-breakpoint
ALTER TABLE "ob_users" ADD COLUMN "webhook_body_format" text DEFAULT 'jose' NOT NULL;--> statement-breakpoint
ALTER TABLE "ob_users" ALTER COLUMN "webhook_body_format" SET DEFAULT 'envelope';
