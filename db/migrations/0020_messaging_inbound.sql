CREATE TABLE "messaging_inbound_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"duplicate_key" text NOT NULL,
	"account_id" text,
	"to_number" text NOT NULL,
	"from_number" text NOT NULL,
	"message" text NOT NULL,
	"keyword" text,
	"carrier" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messaging_inbound_numbers" (
	"number" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"inbound_url" text,
	"assigned_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messaging_opt_outs" (
	"sender" text NOT NULL,
	"recipient" text NOT NULL,
	"account_id" text NOT NULL,
	"inbound_message_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "messaging_opt_outs_sender_recipient_pk" PRIMARY KEY("sender","recipient")
);
--> statement-breakpoint
ALTER TABLE "messaging_inbound_messages" ADD CONSTRAINT "messaging_inbound_messages_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_inbound_numbers" ADD CONSTRAINT "messaging_inbound_numbers_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_opt_outs" ADD CONSTRAINT "messaging_opt_outs_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messaging_inbound_messages_duplicate_idx" ON "messaging_inbound_messages" USING btree ("duplicate_key","received_at");--> statement-breakpoint
CREATE INDEX "messaging_opt_outs_account_idx" ON "messaging_opt_outs" USING btree ("account_id");