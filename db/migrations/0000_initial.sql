CREATE TABLE "messaging_access_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"label" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "messaging_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messaging_hlr_lookups" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"number" text NOT NULL,
	"callback_url" text NOT NULL,
	"status" text NOT NULL,
	"result" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "messaging_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"channel" text NOT NULL,
	"to_number" text NOT NULL,
	"from_sender" text NOT NULL,
	"message" text NOT NULL,
	"encoding" text NOT NULL,
	"parts" integer NOT NULL,
	"dlr_url" text,
	"scheduled_at" timestamp with time zone,
	"status" text NOT NULL,
	"carrier_message_id" text,
	"error" text,
	"idempotency_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"submitted_at" timestamp with time zone,
	"done_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "messaging_sender_ids" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"sender_id" text NOT NULL,
	"description" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"confirmed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" serial PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"status_code" integer,
	"latency_ms" integer NOT NULL,
	"error" text,
	"retry_after_ms" integer
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"endpoint_id" text NOT NULL,
	"service" text NOT NULL,
	"owner_id" text NOT NULL,
	"event_type" text NOT NULL,
	"event_id" text NOT NULL,
	"subject_id" text,
	"payload" jsonb NOT NULL,
	"status" text NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"service" text NOT NULL,
	"owner_id" text NOT NULL,
	"url" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messaging_access_tokens" ADD CONSTRAINT "messaging_access_tokens_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_hlr_lookups" ADD CONSTRAINT "messaging_hlr_lookups_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_messages" ADD CONSTRAINT "messaging_messages_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_sender_ids" ADD CONSTRAINT "messaging_sender_ids_account_id_messaging_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."messaging_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_access_tokens_hash_idx" ON "messaging_access_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_messages_idempotency_idx" ON "messaging_messages" USING btree ("account_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "messaging_messages_carrier_idx" ON "messaging_messages" USING btree ("carrier_message_id");--> statement-breakpoint
CREATE INDEX "messaging_messages_scheduled_idx" ON "messaging_messages" USING btree ("account_id","scheduled_at");--> statement-breakpoint
CREATE INDEX "messaging_sender_ids_account_idx" ON "messaging_sender_ids" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_sender_ids_live_idx" ON "messaging_sender_ids" USING btree ("account_id","sender_id") WHERE "messaging_sender_ids"."status" in ('pending', 'confirmed');--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_attempts_delivery_attempt_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_owner_idx" ON "webhook_deliveries" USING btree ("service","owner_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_subject_idx" ON "webhook_deliveries" USING btree ("service","owner_id","subject_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_endpoints_owner_url_idx" ON "webhook_endpoints" USING btree ("service","owner_id","url");