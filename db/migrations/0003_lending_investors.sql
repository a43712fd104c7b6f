CREATE TABLE "lending_investment_shares" (
	"tenant_id" text NOT NULL,
	"bid_id" text NOT NULL,
	"repayment_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"repayment_amount" numeric NOT NULL,
	"amount" numeric NOT NULL,
	"date" date NOT NULL,
	"reversed" boolean NOT NULL,
	"version" integer NOT NULL,
	CONSTRAINT "lending_investment_shares_tenant_id_bid_id_repayment_id_pk" PRIMARY KEY("tenant_id","bid_id","repayment_id")
);
--> statement-breakpoint
CREATE TABLE "lending_investor_bids" (
	"tenant_id" text NOT NULL,
	"bid_id" text NOT NULL,
	"loan_id" text NOT NULL,
	"investor_id" text NOT NULL,
	"amount" numeric NOT NULL,
	"status" text NOT NULL,
	"placed_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"invested_on" date,
	"version" integer NOT NULL,
	CONSTRAINT "lending_investor_bids_tenant_id_bid_id_pk" PRIMARY KEY("tenant_id","bid_id")
);
--> statement-breakpoint
CREATE TABLE "lending_investors" (
	"user_id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"details" jsonb NOT NULL,
	"preferences" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lending_investors" ADD CONSTRAINT "lending_investors_user_id_lending_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."lending_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lending_investors" ADD CONSTRAINT "lending_investors_tenant_id_lending_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."lending_tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lending_investor_bids_investor_idx" ON "lending_investor_bids" USING btree ("tenant_id","investor_id");--> statement-breakpoint
CREATE INDEX "lending_investor_bids_loan_idx" ON "lending_investor_bids" USING btree ("tenant_id","loan_id");