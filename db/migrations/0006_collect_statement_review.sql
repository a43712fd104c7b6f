ALTER TABLE "collect_merchants" ADD COLUMN "return_origins" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "collect_statement_credits" ADD COLUMN "reason_detail" text;