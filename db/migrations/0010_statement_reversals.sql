DROP INDEX "collect_notifications_change_idx";--> statement-breakpoint
ALTER TABLE "collect_notifications" ADD COLUMN "round" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "collect_statement_credits" ADD COLUMN "reverses_credit_id" bigint;--> statement-breakpoint
CREATE UNIQUE INDEX "collect_notifications_change_round_idx" ON "collect_notifications" USING btree ("merchant_min","invoice","status","round");