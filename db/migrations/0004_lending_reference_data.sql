CREATE TABLE "lending_application_settings" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"co_applicant" jsonb,
	"vendors" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lending_dictionaries" (
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"parent" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lending_dictionaries_tenant_id_name_pk" PRIMARY KEY("tenant_id","name")
);
--> statement-breakpoint
CREATE TABLE "lending_dictionary_values" (
	"tenant_id" text NOT NULL,
	"dictionary" text NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"parent_code" text,
	"position" integer NOT NULL,
	CONSTRAINT "lending_dictionary_values_tenant_id_dictionary_code_pk" PRIMARY KEY("tenant_id","dictionary","code")
);
--> statement-breakpoint
CREATE TABLE "lending_loan_points_of_sale" (
	"tenant_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"vendor_id" text NOT NULL,
	"vendor_name" text NOT NULL,
	"store_id" text,
	"store_name" text,
	CONSTRAINT "lending_loan_points_of_sale_tenant_id_loan_id_pk" PRIMARY KEY("tenant_id","loan_id")
);
--> statement-breakpoint
CREATE TABLE "lending_stores" (
	"tenant_id" text NOT NULL,
	"store_id" text NOT NULL,
	"vendor_id" text NOT NULL,
	"name" text NOT NULL,
	"address" text NOT NULL,
	"city" text,
	"latitude" double precision NOT NULL,
	"longitude" double precision NOT NULL,
	"active" boolean NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "lending_stores_tenant_id_store_id_pk" PRIMARY KEY("tenant_id","store_id")
);
--> statement-breakpoint
CREATE TABLE "lending_vendors" (
	"tenant_id" text NOT NULL,
	"vendor_id" text NOT NULL,
	"name" text NOT NULL,
	"active" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lending_vendors_tenant_id_vendor_id_pk" PRIMARY KEY("tenant_id","vendor_id")
);
--> statement-breakpoint
ALTER TABLE "lending_application_settings" ADD CONSTRAINT "lending_application_settings_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_dictionaries" ADD CONSTRAINT "lending_dictionaries_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_vendors" ADD CONSTRAINT "lending_vendors_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lending_dictionary_values_parent_idx" ON "lending_dictionary_values" USING btree ("tenant_id","dictionary","parent_code");--> statement-breakpoint
CREATE INDEX "lending_stores_vendor_idx" ON "lending_stores" USING btree ("tenant_id","vendor_id");