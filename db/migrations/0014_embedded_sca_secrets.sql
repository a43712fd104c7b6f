CREATE TABLE "ob_sca_secrets" (
	"id" text PRIMARY KEY NOT NULL,
	"subject" text NOT NULL,
	"sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "ob_sca_secrets_expiry_idx" ON "ob_sca_secrets" USING btree ("expires_at");