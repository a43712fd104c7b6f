CREATE TABLE "messaging_price_lists" (
	"scope" text PRIMARY KEY NOT NULL,
	"rows" jsonb NOT NULL,
	"uploaded_at" timestamp with time zone DEFAULT now() NOT NULL
);
