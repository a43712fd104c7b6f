ALTER TABLE "ob_consents" ADD COLUMN "bank_token_endpoint" text;--> statement-breakpoint
ALTER TABLE "ob_consents" ADD COLUMN "bank_access_token_sealed" text;--> statement-breakpoint
ALTER TABLE "ob_consents" ADD COLUMN "bank_refresh_token_sealed" text;--> statement-breakpoint
ALTER TABLE "ob_consents" ADD COLUMN "bank_token_expires_at" timestamp with time zone;