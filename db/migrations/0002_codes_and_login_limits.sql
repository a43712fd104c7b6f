CREATE TABLE "lending_login_throttles" (
	"key" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"blocked_until" timestamp with time zone,
	"locked_at" timestamp with time zone,
	"last_failure_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "lending_signing_code_sends" (
	"tenant_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"sends" integer NOT NULL,
	CONSTRAINT "lending_signing_code_sends_tenant_id_loan_id_window_start_pk" PRIMARY KEY("tenant_id","loan_id","window_start")
);
--> statement-breakpoint
ALTER TABLE "lending_email_outbox" ALTER COLUMN "body" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "messaging_messages" ADD COLUMN "contains_code" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "messaging_messages" ADD COLUMN "message_digest" text;--> statement-breakpoint
ALTER TABLE "lending_login_throttles" ADD CONSTRAINT "lending_login_throttles_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_signing_code_sends" ADD CONSTRAINT "lending_signing_code_sends_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Bodies written before they were sealed carry reset codes in clear: forget them (issue 20).
UPDATE "lending_email_outbox" SET "body" = NULL;
