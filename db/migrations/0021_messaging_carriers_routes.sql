CREATE TABLE "messaging_carriers" (
	"name" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"system_id" text NOT NULL,
	"password_sealed" text NOT NULL,
	"window" integer DEFAULT 32 NOT NULL,
	"submit_rate" integer,
	"long_messages" text DEFAULT 'message_payload' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messaging_routes" (
	"name" text PRIMARY KEY NOT NULL,
	"prefix" text,
	"mcc_mnc" text,
	"priority" integer DEFAULT 100 NOT NULL,
	"carriers" text[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
