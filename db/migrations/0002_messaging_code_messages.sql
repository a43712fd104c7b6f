ALTER TABLE "messaging_messages" ADD COLUMN "contains_code" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "messaging_messages" ADD COLUMN "message_digest" text;