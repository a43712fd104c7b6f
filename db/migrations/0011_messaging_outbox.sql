CREATE TABLE "messaging_outbox" (
	"message_id" text PRIMARY KEY NOT NULL,
	"sealed_text" text,
	"lease_until" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messaging_outbox" ADD CONSTRAINT "messaging_outbox_message_id_messaging_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messaging_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messaging_outbox_due_idx" ON "messaging_outbox" USING btree ("lease_until","created_at");