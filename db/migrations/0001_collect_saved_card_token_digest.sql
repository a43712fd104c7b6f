ALTER TABLE "collect_saved_cards" ADD COLUMN "token_digest" text;--> statement-breakpoint
ALTER TABLE "collect_saved_cards" ADD COLUMN "token_sealed" text;--> statement-breakpoint
CREATE UNIQUE INDEX "collect_saved_cards_token_digest_idx" ON "collect_saved_cards" USING btree ("token_digest");